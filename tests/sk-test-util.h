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

double    sk_test_median          (double      *values,
                                   guint        n);
guint     sk_test_env_uint        (const char  *name,
                                   guint        fallback,
                                   guint        max);

gboolean  sk_test_timeout_cb      (gpointer     user_data);

/* Runs the main loop until @cond holds or @msec pass, then asserts @cond. */
#define SK_TEST_WAIT_UNTIL(cond, msec) \
  G_STMT_START { \
    gboolean timed_out_ = FALSE; \
    guint id_ = g_timeout_add ((msec), sk_test_timeout_cb, &timed_out_); \
    while (!(cond) && !timed_out_) \
      g_main_context_iteration (NULL, TRUE); \
    if (!timed_out_) \
      g_source_remove (id_); \
    g_assert_true (cond); \
  } G_STMT_END

G_END_DECLS
