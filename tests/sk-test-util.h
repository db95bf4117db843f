/* sk-test-util.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers that the tests and the benchmark share.
 */

#pragma once

#include <sys/types.h>

#include <glib.h>

G_BEGIN_DECLS

#define SK_TEST_STRV(...) ((const char * const[]) { __VA_ARGS__, NULL })

void      sk_test_remove_tree     (const char  *path);
char     *sk_test_make_tmp_dir    (const char  *name);

void      sk_test_write_text      (const char  *folder,
                                   const char  *relative,
                                   const char  *text);
char     *sk_test_read_text       (const char  *folder,
                                   const char  *relative);
gboolean  sk_test_exists          (const char  *folder,
                                   const char  *relative);

void      sk_test_write_script    (const char  *folder,
                                   const char  *template_text,
                                   const char  *key,
                                   const char  *pre,
                                   const char  *compute);
char     *sk_test_take_runs       (const char  *folder);

/* The body of compute() for a step that sleeps for a second and writes when
 * it started and ended to KEY.times, for sk_test_read_interval(). The
 * script must define KEY, WORKFLOW and state, and import os and time.
 */
#define SK_TEST_SLEEP_ONE_SECOND \
  "    start = time.time()\n" \
  "    time.sleep(1)\n" \
  "    end = time.time()\n" \
  "    with open(os.path.join(WORKFLOW, KEY + \".times\"), \"w\") as f:\n" \
  "        f.write(repr(start) + \" \" + repr(end))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

void      sk_test_read_interval   (const char  *folder,
                                   const char  *key,
                                   double      *start,
                                   double      *end);

void      sk_test_assert_contains (const char  *haystack,
                                   const char  *needle);
gboolean  sk_test_process_gone    (pid_t        pid);
char     *sk_test_find_python     (void);

G_END_DECLS
