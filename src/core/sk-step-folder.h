/* sk-step-folder.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

/* The folder of the runner's bookkeeping inside a step folder. The harness
 * keeps the same names in its constants block. */
#define SK_STEP_BOOKKEEPING_NAME ".skele"

/**
 * SkStepFile:
 * @SK_STEP_FILE_SCRIPT: `KEY.py`, the step's script
 * @SK_STEP_FILE_PICKLE: `KEY.pkl`, its output dictionary
 * @SK_STEP_FILE_SUMMARY: `KEY_summary.txt`, its report in plain language
 * @SK_STEP_FILE_TEST: `test/test_KEY.py`, its unit tests
 * @SK_STEP_FILE_TEST_FOLDER: `test/`
 * @SK_STEP_FILE_BOOKKEEPING: `.skele/`, never user data
 * @SK_STEP_FILE_RECORD: `.skele/record.json`, the last run's result
 * @SK_STEP_FILE_RESULT: `.skele/result.json`, what the harness reported
 * @SK_STEP_FILE_STDOUT: `.skele/stdout.log`
 * @SK_STEP_FILE_STDERR: `.skele/stderr.log`
 * @SK_STEP_FILE_AGENT_LOG: `.skele/agent.log`, what the coding agent did
 * @SK_STEP_FILE_PREVIOUS_FOLDER: `.skele/previous/`
 * @SK_STEP_FILE_PREVIOUS_SCRIPT: `.skele/previous/KEY.py`, the script as it
 *   was before it was replaced
 *
 * The files of a step folder whose names the program decides.
 */
typedef enum
{
  SK_STEP_FILE_SCRIPT,
  SK_STEP_FILE_PICKLE,
  SK_STEP_FILE_SUMMARY,
  SK_STEP_FILE_TEST,
  SK_STEP_FILE_TEST_FOLDER,
  SK_STEP_FILE_BOOKKEEPING,
  SK_STEP_FILE_RECORD,
  SK_STEP_FILE_RESULT,
  SK_STEP_FILE_STDOUT,
  SK_STEP_FILE_STDERR,
  SK_STEP_FILE_AGENT_LOG,
  SK_STEP_FILE_PREVIOUS_FOLDER,
  SK_STEP_FILE_PREVIOUS_SCRIPT,
} SkStepFile;

char    *sk_step_folder_relative_path     (const char  *key,
                                           SkStepFile   file);
char    *sk_step_folder_build_path        (const char  *step_folder,
                                           const char  *key,
                                           SkStepFile   file);
GFile   *sk_step_folder_get_file          (GFile       *workflow_folder,
                                           const char  *key,
                                           SkStepFile   file);
gboolean sk_step_folder_is_bookkeeping    (const char  *name);
gboolean sk_step_folder_is_own_file       (const char  *key,
                                           const char  *relative_path);

gboolean sk_step_folder_rename            (GFile       *workflow_folder,
                                           const char  *old_key,
                                           const char  *new_key,
                                           GError     **error);
gboolean sk_step_folder_put_aside_script  (GFile       *workflow_folder,
                                           const char  *key,
                                           GError     **error);
gboolean sk_step_folder_copy_to_previous  (GFile       *workflow_folder,
                                           const char  *key,
                                           GError     **error);

GFile   *sk_step_folder_get_worker_log    (GFile       *workflow_folder);
GFile   *sk_step_folder_get_chat_log      (GFile       *workflow_folder);
GFile   *sk_step_folder_get_recovery_file (GFile       *workflow_folder);
gboolean sk_step_folder_write_recovery    (GFile       *workflow_folder,
                                           const char  *data,
                                           gsize        length,
                                           GError     **error);
char    *sk_step_folder_read_recovery     (GFile       *workflow_folder,
                                           gsize       *length);
void     sk_step_folder_delete_recovery   (GFile       *workflow_folder);
gboolean sk_step_folder_copy_workflow     (GFile       *source,
                                           GFile       *destination,
                                           GError     **error);

G_END_DECLS
