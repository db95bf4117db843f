/* sk-test-agent.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the tests that play the coding agent's model share: the scripts it
 * writes and its scripted replies on the fake LLM server.
 */

#pragma once

#include <glib.h>

#include "sk-fake-llm.h"

G_BEGIN_DECLS

/* A step script as the model writes one. It takes its key from its
 * folder's name, starts its summary with @task (a string literal), keeps
 * what its priors gave in state['local'], and may call summary(LINE) to add
 * to the summary. @compute is the body of compute() (string literals,
 * indented by four spaces, each line ending in a newline).
 */
#define SK_TEST_STEP_SCRIPT(task, compute) \
  "import os\n" \
  "import pickle\n" \
  "\n" \
  "state = {}\n" \
  "HERE = os.path.dirname(os.path.abspath(__file__))\n" \
  "KEY = os.path.basename(HERE)\n" \
  "\n" \
  "def summary(line, mode='a'):\n" \
  "    with open(os.path.join(HERE, KEY + '_summary.txt'), mode) as f:\n" \
  "        f.write(line + '\\n')\n" \
  "\n" \
  "def preprocess(prior_outputs):\n" \
  "    summary('" task "', 'w')\n" \
  "    state['local'] = prior_outputs\n" \
  "    return True\n" \
  "\n" \
  "def save():\n" \
  "    with open(os.path.join(HERE, KEY + '.pkl'), 'wb') as f:\n" \
  "        pickle.dump(state['output'], f)\n" \
  "\n" \
  "def compute():\n" \
  compute

void  sk_test_push_call               (SkFakeLlm  *fake,
                                       const char *said,
                                       const char *tool,
                                       const char *first_member,
                                       const char *first_value,
                                       const char *second_member,
                                       const char *second_value);
void  sk_test_push_write              (SkFakeLlm  *fake,
                                       const char *path,
                                       const char *content);
void  sk_test_push_complete           (SkFakeLlm  *fake,
                                       const char *summary);
void  sk_test_push_write_and_complete (SkFakeLlm  *fake,
                                       const char *path,
                                       const char *content,
                                       const char *summary);

G_END_DECLS
