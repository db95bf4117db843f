/* sk-test-agent.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "sk-test-agent.h"

/**
 * sk_test_push_call:
 * @fake: the fake server
 * @said: the sentence the model says before the call
 * @tool: the tool it calls
 * @first_member: the name of the call's first argument
 * @first_value: its value
 * @second_member: (nullable): the name of a second argument
 * @second_value: (nullable): its value
 *
 * Queues one reply of the model: a sentence and one tool call, reading 100
 * tokens and writing 20.
 */
void
sk_test_push_call (SkFakeLlm  *fake,
                   const char *said,
                   const char *tool,
                   const char *first_member,
                   const char *first_value,
                   const char *second_member,
                   const char *second_value)
{
  g_autoptr(GError) error = NULL;

  sk_fake_llm_push_tool_call (fake, said, tool, first_member, first_value,
                              second_member, second_value, &error);
  g_assert_no_error (error);
}

/* Queues a reply that writes @content to @path in the step's folder. */
void
sk_test_push_write (SkFakeLlm  *fake,
                    const char *path,
                    const char *content)
{
  sk_test_push_call (fake, "I am writing the script.", "write_file", "path", path, "content", content);
}

/* Queues a reply that ends the task, with @summary for the user. */
void
sk_test_push_complete (SkFakeLlm  *fake,
                       const char *summary)
{
  sk_test_push_call (fake, "Everything works.", "task_complete", "summary", summary, NULL, NULL);
}

/* Queues the two replies of a model that gets a step right at once: it
 * writes @content to @path, then ends the task with @summary.
 */
void
sk_test_push_write_and_complete (SkFakeLlm  *fake,
                                 const char *path,
                                 const char *content,
                                 const char *summary)
{
  sk_test_push_write (fake, path, content);
  sk_test_push_complete (fake, summary);
}
