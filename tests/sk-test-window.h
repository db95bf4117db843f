/* sk-test-window.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the tests of the main window share: a real application, one
 * temporary folder per test, and ways to open, drive, inspect and close
 * windows the way a person would.
 */

#pragma once

#include <adwaita.h>

#include "sk-application.h"
#include "sk-canvas-private.h"
#include "sk-fake-llm.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"
#include "sk-window-private.h"

G_BEGIN_DECLS

/* Long enough for a loaded machine; the waits end as soon as they can. */
#define WAIT_MS 20000
#define RUN_WAIT_MS 90000

/* The example that data/examples holds and most tests open, and how many
 * steps it has. */
#define EXAMPLE_NAME "sales-report"
#define EXAMPLE_N_STEPS 9

typedef struct
{
  char  *dir;
  GFile *folder;
} Fixture;

/* Adds a test named /window/PATH that gets a fresh Fixture. */
#define SK_TEST_WINDOW_ADD(path, func) \
  g_test_add ("/window/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

gboolean      sk_test_window_init      (int              *argc,
                                        char           ***argv);
int           sk_test_window_run       (void);

void          fixture_setup            (Fixture          *f,
                                        gconstpointer     data);
void          fixture_teardown         (Fixture          *f,
                                        gconstpointer     data);

/* Main loop */
void          drain                    (void);
void          flush_history            (SkWindow         *window);

/* Files */
gboolean      exists_in                (Fixture          *f,
                                        const char       *relative);
char         *recovery_path            (GFile            *folder);
gboolean      recovery_exists          (GFile            *folder);
void          copy_example             (Fixture          *f);
SkProject    *load_from_disk           (GFile            *folder);

/* Windows and dialogs */
GtkWidget    *template_child           (SkWindow         *window,
                                        const char       *name);
GtkWidget    *step_list_child          (SkWindow         *window,
                                        const char       *name);
const char   *visible_page             (SkWindow         *window);
SkApplication *sk_test_window_app     (void);
SkWindow     *new_window               (void);
SkProject    *open_and_wait            (SkWindow         *window,
                                        GFile            *folder);
SkProject    *create_and_open          (SkWindow         *window,
                                        Fixture          *f,
                                        const char       *name);
gboolean      action_enabled           (SkWindow         *window,
                                        const char       *name);
void          activate                 (SkWindow         *window,
                                        const char       *name);
GtkWindow    *find_dialog              (SkWindow         *parent,
                                        GType             type);
guint         count_dialogs            (SkWindow         *parent,
                                        GType             type);
void          respond                  (AdwMessageDialog *dialog,
                                        const char       *label);
void          destroy_window           (SkWindow         *window);

/* Steps */
SkNode       *node_by_key              (SkWindow         *window,
                                        const char       *key);
SkNode       *add_step                 (SkProject        *project,
                                        const char       *id,
                                        const char       *name);

/* Running and the coding agent */
void          use_python               (void);
void          forget_python            (void);
gboolean      skip_without_python      (void);
SkFakeLlm    *use_agent                (void);
void          forget_agent             (SkFakeLlm        *fake);

G_END_DECLS
