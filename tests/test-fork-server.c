/* test-fork-server.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What is particular to steps forked by the fork server, through `skele
 * run` as a user runs it: that they are forked, each in a session of its
 * own, with a random state of its own; that in the sandbox each keeps to
 * its own permissions although the server has all of the run's; that a
 * step that kills the server fails alone; and that steps are spawned, and
 * say why, when forking is turned off. The runner's and the step faults'
 * tests run both ways as well.
 */

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "sk-test-util.h"

/* Writes what the step's process is: its session, the program its parent
 * runs, and a random number. */
#define DESCRIBE_COMPUTE \
  "    import random\n" \
  "    parent = open(\"/proc/%d/cmdline\" % os.getppid(), \"rb\").read().split(b\"\\0\")\n" \
  "    note(\"process\", \"session-leader=%s serve=%s random=%r\" % (\n" \
  "        os.getsid(0) == os.getpid(), b\"serve\" in parent, random.random()))\n" \
  "    state[\"output\"] = {\"value\": KEY, \"task_status\": \"success\"}\n"

static char *
events_mode (const char *out,
             char      **reason)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonNode) root = NULL;
      JsonObject *event;

      if (lines[i][0] != '{')
        continue;
      root = sk_test_parse_json (lines[i]);
      event = json_node_get_object (root);
      if (g_strcmp0 (json_object_get_string_member_with_default (event, "event", ""),
                     "processes") != 0)
        continue;

      if (reason != NULL)
        *reason = g_strdup (json_object_get_string_member_with_default (event, "reason", ""));
      return g_strdup (json_object_get_string_member (event, "mode"));
    }

  return NULL;
}

static void
write_described (const char *dir)
{
  sk_test_write_spec_process (dir, "forked", "1 a\n2 b 1\n3 c 1");
  sk_test_write_step (dir, "a", DESCRIBE_COMPUTE);
  sk_test_write_step (dir, "b", DESCRIBE_COMPUTE);
  sk_test_write_step (dir, "c", DESCRIBE_COMPUTE);
}

/* Without a sandbox steps can always be forked: each leads a session of
 * its own, has the server for its parent, and does not share the random
 * state the server had when it forked. */
static void
test_forked (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server");
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *mode = NULL;
  g_autoptr(GHashTable) randoms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  write_described (dir);
  sk_test_run_skele (&result, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=off", "--jobs=2",
                     "--events=json", NULL);
  sk_test_assert_status (&result, 0);

  mode = events_mode (result.out, NULL);
  g_assert_cmpstr (mode, ==, "fork-server");

  for (guint i = 0; i < 3; i++)
    {
      const char *keys[] = { "a", "b", "c" };
      g_autofree char *path = g_build_filename (keys[i], ".skele/journal", "process", NULL);
      g_autofree char *text = sk_test_read_text (dir, path);
      const char *random = strstr (text, "random=");

      sk_test_assert_contains (text, "session-leader=True serve=True");
      g_assert_nonnull (random);
      g_assert_true (g_hash_table_add (randoms, g_strdup (random)));
    }
}

/* Turned off, steps start a Python each, and the events say so. */
static void
test_spawned (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-off");
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *mode = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *path = g_build_filename ("b", ".skele/journal", "process", NULL);
  g_autofree char *text = NULL;

  write_described (dir);
  sk_test_run_skele (&result, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=off", "--spawn-steps",
                     "--events=json", NULL);
  sk_test_assert_status (&result, 0);

  mode = events_mode (result.out, &reason);
  g_assert_cmpstr (mode, ==, "spawn");
  sk_test_assert_contains (reason, "turned off");
  text = sk_test_read_text (dir, path);
  sk_test_assert_contains (text, "session-leader=True serve=False");
}

/* The server has the permissions of every step of the run; a forked step
 * gives back those of the others. It writes its own folder, not another
 * step's; reads its own input from outside the workflow, not another's;
 * and keeps no capability with which it could undo that. */
#define NARROW_COMPUTE \
  "    def attempt(what, action):\n" \
  "        try:\n" \
  "            action()\n" \
  "            note(\"narrow\", what + \" allowed\")\n" \
  "        except OSError as exc:\n" \
  "            note(\"narrow\", what + \" denied \" + type(exc).__name__)\n" \
  "    other = \"b\" if KEY == \"a\" else \"a\"\n" \
  "    attempt(\"own-write\", lambda: open(os.path.join(FOLDER, \"mine.txt\"), \"w\").close())\n" \
  "    attempt(\"other-write\", lambda: open(os.path.join(WORKFLOW, other, \"theirs.txt\"), \"w\").close())\n" \
  "    for name in (\"a\", \"b\"):\n" \
  "        path = os.path.join(\"@OUTSIDE@\", name + \".csv\")\n" \
  "        try:\n" \
  "            text = open(path).read()\n" \
  "        except OSError as exc:\n" \
  "            text = type(exc).__name__\n" \
  "        note(\"narrow\", \"read-\" + name + \" \" + (text.strip() or \"empty\"))\n" \
  "    status = open(\"/proc/self/status\").read()\n" \
  "    note(\"narrow\", \"capabilities \" + status.split(\"CapEff:\")[1].split()[0])\n" \
  "    state[\"output\"] = {\"value\": KEY, \"task_status\": \"success\"}\n"

static void
test_sandbox_narrowed (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-narrow");
  g_autofree char *outside = sk_test_make_tmp_dir ("fork-server-outside");
  g_autofree char *json = NULL;
  g_autofree char *a_csv = g_build_filename (outside, "a.csv", NULL);
  g_autofree char *b_csv = g_build_filename (outside, "b.csv", NULL);
  g_autofree char *a_notes = NULL;
  g_autofree char *b_notes = NULL;
  g_autofree char *mode = NULL;
  g_autofree char *reason = NULL;
  g_autoptr(GString) compute = g_string_new (NARROW_COMPUTE);
  g_auto(SkTestResult) result = { 0 };

  sk_test_write_text (outside, "a.csv", "for-a");
  sk_test_write_text (outside, "b.csv", "for-b");
  json = g_strdup_printf ("{\"process_name\": \"narrow\", \"nodes\": {"
                          "\"1\": {\"name\": \"a\", \"priors\": [], \"run\": true,"
                          "        \"input\": {\"text\": \"a\", \"files\": [\"%s\"]}},"
                          "\"2\": {\"name\": \"b\", \"priors\": [], \"run\": true,"
                          "        \"input\": {\"text\": \"b\", \"files\": [\"%s\"]}}}}",
                          a_csv, b_csv);
  sk_test_write_text (dir, "process.json", json);
  g_string_replace (compute, "@OUTSIDE@", outside, 0);
  sk_test_write_step (dir, "a", compute->str);
  sk_test_write_step (dir, "b", compute->str);

  sk_test_run_skele (&result, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=required",
                     "--jobs=1", "--events=json", NULL);

  mode = events_mode (result.out, &reason);
  if (result.status != 0 && strstr (result.err, "sandbox") != NULL && mode == NULL)
    {
      g_test_skip ("No sandbox can be made here");
      return;
    }
  sk_test_assert_status (&result, 0);

  if (g_strcmp0 (mode, "fork-server") != 0)
    {
      g_autofree char *message = g_strdup_printf ("Steps are not forked in the sandbox here: %s",
                                                  reason);

      g_test_skip (message);
      return;
    }

  a_notes = sk_test_read_text (dir, "a/.skele/journal/narrow");
  b_notes = sk_test_read_text (dir, "b/.skele/journal/narrow");
  g_test_message ("a:\n%s\nb:\n%s", a_notes, b_notes);

  sk_test_assert_contains (a_notes, "own-write allowed");
  sk_test_assert_contains (a_notes, "other-write denied");
  sk_test_assert_contains (a_notes, "read-a for-a");
  g_assert_null (strstr (a_notes, "for-b"));
  sk_test_assert_contains (a_notes, "capabilities 0000000000000000");

  sk_test_assert_contains (b_notes, "own-write allowed");
  sk_test_assert_contains (b_notes, "other-write denied");
  sk_test_assert_contains (b_notes, "read-b for-b");
  g_assert_null (strstr (b_notes, "for-a"));
  sk_test_assert_contains (b_notes, "capabilities 0000000000000000");

  g_assert_false (sk_test_exists (dir, "b/theirs.txt"));
  g_assert_false (sk_test_exists (dir, "a/theirs.txt"));
}

/* A step that kills the server fails; the steps after it are spawned and
 * run, and nothing is left running. */
static void
test_server_killed (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-killed");
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *later = NULL;

  sk_test_write_spec_process (dir, "killed", "1 killer\n2 later 1\n3 apart");
  sk_test_write_step (dir, "killer",
                      "    import signal\n"
                      "    os.kill(os.getppid(), signal.SIGKILL)\n"
                      "    time.sleep(30)\n"
                      "    state[\"output\"] = {\"value\": KEY, \"task_status\": \"success\"}\n");
  sk_test_write_step (dir, "later", DESCRIBE_COMPUTE);
  sk_test_write_step (dir, "apart", DESCRIBE_COMPUTE);

  sk_test_run_skele (&result, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=off", "--jobs=1",
                     "--timeout=20", "--events=json", NULL);
  g_assert_cmpint (result.status, !=, 0);
  sk_test_assert_contains (result.err, "“killer” failed");
  sk_test_assert_contains (result.err, "signal 9");
  sk_test_assert_contains (result.out, "\"key\":\"later\",\"name\":\"later\",\"state\":\"succeeded\"");
  sk_test_assert_contains (result.out, "\"key\":\"apart\",\"name\":\"apart\",\"state\":\"succeeded\"");

  later = sk_test_read_text (dir, "later/.skele/journal/process");
  sk_test_assert_contains (later, "serve=False");
  g_assert_true (sk_test_processes_gone_in (dir));
}

/* The harness is compiled once, into the cache folder, and loaded from
 * there: a second run neither compiles nor rewrites it. The harness of
 * this build is the one written last. */
static void
test_harness_compiled (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-compiled");
  g_autofree char *folder = g_build_filename (g_get_user_cache_dir (), "skele-code", "harness",
                                              NULL);
  g_autofree char *newest = NULL;
  g_autofree char *compiled = NULL;
  g_auto(SkTestResult) first = { 0 };
  g_auto(SkTestResult) second = { 0 };
  g_autoptr(GDir) sources = NULL;
  GStatBuf before, after;
  gint64 newest_time = -1;
  const char *name;

  write_described (dir);
  sk_test_run_skele (&first, SK_TEST_RUN_DEFAULT, "run", dir, "--events=json", NULL);
  sk_test_assert_status (&first, 0);

  sources = g_dir_open (folder, 0, NULL);
  g_assert_nonnull (sources);
  while ((name = g_dir_read_name (sources)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      GStatBuf st;

      if (g_str_has_suffix (name, ".py") && g_stat (path, &st) == 0 &&
          (gint64) st.st_mtime >= newest_time)
        {
          newest_time = st.st_mtime;
          g_free (newest);
          newest = g_strndup (name, strlen (name) - 3);
        }
    }
  g_assert_nonnull (newest);

  {
    g_autofree char *cache = g_build_filename (folder, "__pycache__", NULL);
    g_autoptr(GDir) pycache = g_dir_open (cache, 0, NULL);

    g_assert_nonnull (pycache);
    while ((name = g_dir_read_name (pycache)) != NULL)
      if (g_str_has_prefix (name, newest) && name[strlen (newest)] == '.' &&
          g_str_has_suffix (name, ".pyc"))
        compiled = g_build_filename (cache, name, NULL);
  }
  g_assert_nonnull (compiled);

  g_assert_cmpint (g_stat (compiled, &before), ==, 0);
  sk_test_run_skele (&second, SK_TEST_RUN_DEFAULT, "run", dir, "--force", NULL);
  sk_test_assert_status (&second, 0);
  g_assert_cmpint (g_stat (compiled, &after), ==, 0);
  g_assert_cmpint (before.st_mtime, ==, after.st_mtime);
  g_assert_cmpint (before.st_ino, ==, after.st_ino);
}

/* A forked step ends as an interpreter would: its exit functions run and
 * the threads it left running are waited for. */
static void
test_exit (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-exit");
  g_auto(SkTestResult) result = { 0 };
  g_autofree char *notes = NULL;

  sk_test_write_spec_process (dir, "exit", "1 ender");
  sk_test_write_step (dir, "ender",
                      "    import atexit, threading\n"
                      "    atexit.register(lambda: note(\"ends\", \"atexit\"))\n"
                      "    def late():\n"
                      "        time.sleep(0.5)\n"
                      "        note(\"ends\", \"thread\")\n"
                      "    threading.Thread(target=late).start()\n"
                      "    state[\"output\"] = {\"value\": KEY, \"task_status\": \"success\"}\n");

  sk_test_run_skele (&result, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=off", "--events=json",
                     NULL);
  sk_test_assert_status (&result, 0);
  sk_test_assert_contains (result.out, "\"mode\":\"fork-server\"");

  notes = sk_test_read_text (dir, "ender/.skele/journal/ends");
  g_assert_cmpstr (notes, ==, "thread\natexit\n");
}

/* The file of @folder that holds @text. */
static char *
file_holding (const char *folder,
              const char *text)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autofree char *contents = NULL;

      if (g_file_get_contents (path, &contents, NULL, NULL) && strstr (contents, text) != NULL)
        return g_steal_pointer (&path);
    }

  return NULL;
}

#define LOOK_COMPUTE \
  "    try:\n" \
  "        text = open(\"@OUTSIDE@/marker.txt\").read().strip()\n" \
  "    except OSError:\n" \
  "        text = \"hidden\"\n" \
  "    note(\"look\", text)\n" \
  "    state[\"output\"] = {\"value\": KEY, \"task_status\": \"success\"}\n"

/* What the interpreter says it needs in the sandbox is kept from one run
 * to the next, and asked again after a day: a folder added to the kept
 * answer is shown to the step until the answer is too old. */
static void
test_python_answer_kept (void)
{
  g_autofree char *dir = sk_test_make_tmp_dir ("fork-server-answer");
  g_autofree char *outside = sk_test_make_tmp_dir ("fork-server-answer-outside");
  g_autofree char *answers = g_build_filename (g_get_user_cache_dir (), "skele-code", "python",
                                               NULL);
  g_autoptr(GString) compute = g_string_new (LOOK_COMPUTE);
  g_autofree char *python = NULL;
  g_autofree char *real_python = NULL;
  g_autofree char *answer_path = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *hidden = NULL;
  g_autofree char *seen = NULL;
  g_autofree char *again = NULL;
  g_auto(SkTestResult) first = { 0 };
  g_auto(SkTestResult) second = { 0 };
  g_auto(SkTestResult) third = { 0 };
  struct utimbuf old_times;

  /* An interpreter of this test's own, through a link, so that its answer
   * is the test's alone. */
  python = g_build_filename (outside, "python3", NULL);
  real_python = sk_test_find_python ();
  g_assert_cmpint (symlink (real_python, python), ==, 0);
  sk_test_write_text (outside, "marker.txt", "seen");
  sk_test_write_spec_process (dir, "answer", "1 looker");
  g_string_replace (compute, "@OUTSIDE@", outside, 0);
  sk_test_write_step (dir, "looker", compute->str);

  sk_test_run_skele (&first, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=required",
                     "--python", python, NULL);
  if (first.status != 0 && strstr (first.err, "sandbox") != NULL)
    {
      g_test_skip ("No sandbox can be made here");
      return;
    }
  sk_test_assert_status (&first, 0);
  hidden = sk_test_read_text (dir, "looker/.skele/journal/look");
  g_assert_cmpstr (hidden, ==, "hidden\n");

  answer_path = file_holding (answers, python);
  g_assert_nonnull (answer_path);
  g_assert_true (g_file_get_contents (answer_path, &answer, NULL, NULL));
  quoted = g_strdup_printf ("\"paths\": [\"%s\", ", outside);
  g_assert_nonnull (strstr (answer, "\"paths\": ["));
  {
    g_autoptr(GString) text = g_string_new (answer);

    g_string_replace (text, "\"paths\": [", quoted, 1);
    changed = g_string_free (g_steal_pointer (&text), FALSE);
  }
  g_assert_true (g_file_set_contents (answer_path, changed, -1, NULL));

  sk_test_run_skele (&second, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=required", "--force",
                     "--python", python, NULL);
  sk_test_assert_status (&second, 0);
  seen = sk_test_read_text (dir, "looker/.skele/journal/look");
  g_assert_cmpstr (seen, ==, "hidden\nseen\n");

  old_times.actime = old_times.modtime = time (NULL) - 2 * 24 * 3600;
  g_assert_cmpint (utime (answer_path, &old_times), ==, 0);
  sk_test_run_skele (&third, SK_TEST_RUN_DEFAULT, "run", dir, "--sandbox=required", "--force",
                     "--python", python, NULL);
  sk_test_assert_status (&third, 0);
  again = sk_test_read_text (dir, "looker/.skele/journal/look");
  g_assert_cmpstr (again, ==, "hidden\nseen\nhidden\n");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!sk_test_need_skele (NULL, NULL))
    return g_test_run ();

  g_test_add_func ("/fork-server/forked", test_forked);
  g_test_add_func ("/fork-server/spawned", test_spawned);
  g_test_add_func ("/fork-server/sandbox-narrowed", test_sandbox_narrowed);
  g_test_add_func ("/fork-server/server-killed", test_server_killed);
  g_test_add_func ("/fork-server/harness-compiled", test_harness_compiled);
  g_test_add_func ("/fork-server/exit", test_exit);
  g_test_add_func ("/fork-server/python-answer-kept", test_python_answer_kept);

  return g_test_run ();
}
