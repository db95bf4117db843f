/* sk-test-util.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers that the tests and the benchmark share.
 */

#pragma once

#include <stdarg.h>
#include <sys/types.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

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

/* A step script that follows the node contract, for sk_test_write_script().
 * It appends its key to the journal runs.log (see sk_test_take_runs()),
 * starts KEY_summary.txt with "task KEY" and keeps what its priors gave in
 * state["local"]["priors"]. @PRE@ is added to the end of preprocess() and
 * may return False; @COMPUTE@ is the whole body of compute(). Both are
 * indented by four spaces, and may call report(LINE) to add to the summary,
 * note(NAME, TEXT) to append a line to the journal NAME (see
 * sk_test_read_note()), describe(PRIORS) for "KEY=VALUE" of every prior's
 * "value", and sleeper(SECONDS, TAG) to start a process that sleeps and
 * carries the workflow folder and TAG in its arguments (see
 * sk_test_processes_gone_in() and sk_test_find_process()).
 *
 * A step may write only in its own folder when it runs in a sandbox, so
 * its journals are kept there, in the runner's bookkeeping folder
 * (SK_TEST_JOURNAL), which is never among the step's outputs. For the same
 * reason a test does not learn a step's process id from the step: in a
 * sandbox, os.getpid() counts in a PID namespace of its own.
 *
 * A test that adds to preprocess() builds its own template from the parts:
 * SK_TEST_SCRIPT_HEAD, SK_TEST_SCRIPT_PREPROCESS, its lines, then
 * SK_TEST_SCRIPT_TAIL.
 */
/* Where in a step's folder the template's scripts keep their journals. */
#define SK_TEST_JOURNAL ".skele/journal"

#define SK_TEST_SCRIPT_TEMPLATE \
  SK_TEST_SCRIPT_HEAD SK_TEST_SCRIPT_PREPROCESS SK_TEST_SCRIPT_TAIL

#define SK_TEST_SCRIPT_HEAD \
  "import os\n" \
  "import pickle\n" \
  "import subprocess\n" \
  "import sys\n" \
  "import time\n" \
  "\n" \
  "KEY = \"@KEY@\"\n" \
  "FOLDER = os.path.dirname(os.path.abspath(__file__))\n" \
  "WORKFLOW = os.path.dirname(FOLDER)\n" \
  "\n" \
  "state = {}\n" \
  "\n" \
  "\n" \
  "def report(line, fresh=False):\n" \
  "    with open(os.path.join(FOLDER, KEY + \"_summary.txt\"), \"w\" if fresh else \"a\") as f:\n" \
  "        f.write(line + \"\\n\")\n" \
  "\n" \
  "\n" \
  "def journal(name):\n" \
  "    folder = os.path.join(FOLDER, \"" SK_TEST_JOURNAL "\")\n" \
  "    os.makedirs(folder, exist_ok=True)\n" \
  "    return os.path.join(folder, name)\n" \
  "\n" \
  "\n" \
  "def note(name, text):\n" \
  "    with open(journal(name), \"a\") as f:\n" \
  "        f.write(text + \"\\n\")\n" \
  "\n" \
  "\n" \
  "def sleeper(seconds, tag, **options):\n" \
  "    return subprocess.Popen([sys.executable, \"-c\",\n" \
  "                             \"import sys, time; time.sleep(float(sys.argv[1]))\",\n" \
  "                             str(seconds), WORKFLOW, tag], **options)\n" \
  "\n" \
  "\n" \
  "def describe(priors):\n" \
  "    return \" \".join(k + \"=\" + (str(v.get(\"value\", \"?\")) if v else \"{}\")\n" \
  "                    for k, v in sorted(priors.items()))\n" \
  "\n" \
  "\n"

#define SK_TEST_SCRIPT_PREPROCESS \
  "def preprocess(prior_outputs):\n" \
  "    note(\"runs.log\", KEY)\n" \
  "    state[\"local\"] = {\"priors\": prior_outputs}\n" \
  "    report(\"task \" + KEY, fresh=True)\n"

#define SK_TEST_SCRIPT_TAIL \
  "@PRE@\n" \
  "    return True\n" \
  "\n" \
  "\n" \
  "def compute():\n" \
  "@COMPUTE@\n" \
  "\n" \
  "\n" \
  "def save():\n" \
  "    with open(os.path.join(FOLDER, KEY + \".pkl\"), \"wb\") as f:\n" \
  "        pickle.dump(state[\"output\"], f)\n"

/* The body of compute() for a step that hangs until it is stopped: it
 * notes in the journal KEY.started that it started (its process id, which
 * means something on the host only without a sandbox), then sleeps for a
 * minute.
 */
#define SK_TEST_HANG \
  "    note(KEY + \".started\", str(os.getpid()))\n" \
  "    time.sleep(60)\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

/* The body of compute() for a step that takes half a minute, long enough
 * for a test to stop it; it needs no helper of the template.
 */
#define SK_TEST_SLEEP_LONG \
  "    time.sleep(30)\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

void      sk_test_write_script    (const char  *folder,
                                   const char  *template_text,
                                   const char  *key,
                                   const char  *pre,
                                   const char  *compute);
void      sk_test_write_step      (const char  *folder,
                                   const char  *key,
                                   const char  *compute);
char     *sk_test_take_runs       (const char  *folder);
char     *sk_test_note_path       (const char  *folder,
                                   const char  *key,
                                   const char  *name);
gboolean  sk_test_has_note        (const char  *folder,
                                   const char  *name);
char     *sk_test_read_note       (const char  *folder,
                                   const char  *name);

/* The body of compute() for a step that sleeps for a second and writes when
 * it started and ended to its journal KEY.times, for
 * sk_test_read_interval(). The script must define journal(), KEY and
 * state, and import time.
 */
#define SK_TEST_SLEEP_ONE_SECOND \
  "    start = time.time()\n" \
  "    time.sleep(1)\n" \
  "    end = time.time()\n" \
  "    with open(journal(KEY + \".times\"), \"w\") as f:\n" \
  "        f.write(repr(start) + \" \" + repr(end))\n" \
  "    state[\"output\"] = {\"task_status\": \"success\"}"

void      sk_test_read_interval   (const char  *folder,
                                   const char  *key,
                                   double      *start,
                                   double      *end);

JsonNode   *sk_test_parse_json    (const char  *text);
void        sk_test_write_spec_process (const char *folder,
                                        const char *name,
                                        const char *spec);
void        sk_test_write_spec_process_full (const char *folder,
                                             const char *name,
                                             const char *spec,
                                             gboolean    with_tasks);
char       *sk_test_bench_script       (guint               number,
                                        const char         *key,
                                        const char * const *priors);
JsonObject *sk_test_parse_object  (const char  *text);

void      sk_test_assert_contains (const char  *haystack,
                                   const char  *needle);
gboolean  sk_test_process_gone    (pid_t        pid);
gboolean  sk_test_processes_gone_in (const char  *folder);
pid_t     sk_test_find_process    (const char  *folder,
                                   const char  *tag);
char     *sk_test_find_python     (void);

double    sk_test_median          (double      *values,
                                   guint        n);
guint     sk_test_env_uint        (const char  *name,
                                   guint        fallback,
                                   guint        max);

gboolean  sk_test_timeout_cb      (gpointer     user_data);
int       sk_test_compare_strings (gconstpointer a,
                                   gconstpointer b);

/* A build with AddressSanitizer runs several times slower, so its waits are
 * longer; they only bound how long a failing test takes to report. */
#if defined (__SANITIZE_ADDRESS__)
# define SK_TEST_WAIT_SCALE 5
#elif defined (__has_feature)
# if __has_feature (address_sanitizer)
#  define SK_TEST_WAIT_SCALE 5
# endif
#endif
#ifndef SK_TEST_WAIT_SCALE
# define SK_TEST_WAIT_SCALE 1
#endif

/* Runs the main loop until @cond holds or @msec pass (longer in a sanitised
 * build), then asserts @cond. */
#define SK_TEST_WAIT_UNTIL(cond, msec) \
  G_STMT_START { \
    gboolean timed_out_ = FALSE; \
    guint id_ = g_timeout_add ((msec) * SK_TEST_WAIT_SCALE, sk_test_timeout_cb, &timed_out_); \
    while (!(cond) && !timed_out_) \
      g_main_context_iteration (NULL, TRUE); \
    if (!timed_out_) \
      g_source_remove (id_); \
    g_assert_true (cond); \
  } G_STMT_END

gboolean  sk_test_need_skele      (const char **skele_bin,
                                   const char **examples_dir);
void      sk_test_missing_tool    (const char  *program);
void      sk_test_print_load_average (const char *label,
                                      const char *when);
gboolean  sk_test_bench_write_file (const char  *path,
                                    const char  *contents,
                                    gssize       length);
gboolean  sk_test_take_option     (int         *argc,
                                   char       **argv,
                                   const char  *option);

/* What a program that a test ran did: its exit status, or minus the signal
 * that ended it, and what it wrote to its standard output and error. */
typedef struct
{
  int   status;
  char *out;
  char *err;
} SkTestResult;

void      sk_test_result_clear    (SkTestResult *result);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SkTestResult, sk_test_result_clear)

/* How sk_test_run_*() run a program. Every program runs under a UTF-8 C
 * locale, untranslated. */
typedef enum
{
  SK_TEST_RUN_DEFAULT       = 0,
  /* Without PYTHONPATH, so that what runs needs nothing of the build's. */
  SK_TEST_RUN_NO_PYTHONPATH = 1 << 0,
  /* The output is read as bytes, which need not be UTF-8 (a picture). */
  SK_TEST_RUN_BINARY        = 1 << 1,
} SkTestRunFlags;

GSubprocessLauncher *sk_test_new_launcher (GSubprocessFlags     flags,
                                           SkTestRunFlags       run_flags);
int       sk_test_exit_status     (GSubprocess         *process);
void      sk_test_run_launcher    (SkTestResult        *result,
                                   GSubprocessLauncher *launcher,
                                   SkTestRunFlags       run_flags,
                                   const char * const  *argv);
void      sk_test_run_launcher_valist (SkTestResult        *result,
                                       GSubprocessLauncher *launcher,
                                       SkTestRunFlags       run_flags,
                                       const char * const  *prefix,
                                       va_list              args);
void      sk_test_run_valist      (SkTestResult        *result,
                                   SkTestRunFlags       run_flags,
                                   const char          *cwd,
                                   const char * const  *prefix,
                                   va_list              args);
void      sk_test_run_skele       (SkTestResult        *result,
                                   SkTestRunFlags       run_flags,
                                   ...) G_GNUC_NULL_TERMINATED;
void      sk_test_assert_status   (SkTestResult        *result,
                                   int                  expected);

void      sk_test_copy_folder     (const char  *from,
                                   const char  *to);
void      sk_test_assert_same_file (const char *expected_folder,
                                    const char *actual_folder,
                                    const char *relative);

/* Whether sk_test_list_files() leaves out @name, in the folder @folder. */
typedef gboolean (*SkTestSkipFunc) (const char *folder,
                                    const char *name);

GPtrArray *sk_test_list_files     (const char     *root,
                                   SkTestSkipFunc  skip);
char     *sk_test_list_step_files (const char  *root);
void      sk_test_assert_same_outputs (const char         *ran,
                                       const char         *exported,
                                       const char * const *expected);

G_END_DECLS
