/* sk-test-window.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the tests of the main window share. Every test works on its own
 * temporary workflow folder, and checks the files on disk as well as the
 * model.
 */

#include <stdio.h>

#include <glib/gstdio.h>

#include "sk-settings.h"
#include "sk-test-window.h"
#include "sk-widgets.h"

static SkApplication *app;
static char *python_path;

/* Main loop helpers ------------------------------------------------------ */

/* Dispatches whatever is ready, without waiting. */
void
drain (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Closes the history's open step, as the next main loop dispatch would. */
void
flush_history (SkWindow *window)
{
  sk_history_flush (_sk_window_get_history (window));
  drain ();
}

/* Files ------------------------------------------------------------------ */

gboolean
exists_in (Fixture    *f,
           const char *relative)
{
  return sk_test_exists (f->dir, relative);
}

char *
recovery_path (GFile *folder)
{
  g_autoptr(GFile) recovery = sk_step_folder_get_recovery_file (folder);

  return g_file_get_path (recovery);
}

gboolean
recovery_exists (GFile *folder)
{
  g_autofree char *path = recovery_path (folder);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

void
copy_example (Fixture *f)
{
  const char *examples = g_getenv ("SKELE_EXAMPLES_DIR");
  g_autoptr(GFile) source = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (examples);
  source = g_file_new_build_filename (examples, EXAMPLE_NAME, NULL);
  sk_step_folder_copy_workflow (source, f->folder, &error);
  g_assert_no_error (error);
  g_assert_true (exists_in (f, "process.json"));
}

SkProject *
load_from_disk (GFile *folder)
{
  g_autoptr(GError) error = NULL;
  SkProject *project = sk_project_load (folder, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

/* Windows and dialogs ---------------------------------------------------- */

GtkWidget *
template_child (SkWindow   *window,
                const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (window), SK_TYPE_WINDOW, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

GtkWidget *
step_list_child (SkWindow   *window,
                 const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (_sk_window_get_step_list (window)),
                                                  SK_TYPE_STEP_LIST, name);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

const char *
visible_page (SkWindow *window)
{
  return gtk_stack_get_visible_child_name (GTK_STACK (template_child (window, "stack")));
}

SkApplication *
sk_test_window_app (void)
{
  return app;
}

SkWindow *
new_window (void)
{
  SkWindow *window = sk_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static gboolean
loaded (SkWindow *window)
{
  return (sk_window_get_project (window) != NULL &&
          !_sk_canvas_is_arranging (_sk_window_get_canvas (window))) ||
         g_strcmp0 (visible_page (window), "error") == 0;
}

/* Opens @folder and waits until it is shown, including the layout that a
 * workflow without positions gets on opening.
 */
SkProject *
open_and_wait (SkWindow *window,
               GFile    *folder)
{
  sk_window_open (window, folder, FALSE);
  g_assert_cmpstr (visible_page (window), ==, "loading");
  SK_TEST_WAIT_UNTIL (loaded (window), WAIT_MS);
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  drain ();

  return sk_window_get_project (window);
}

SkProject *
create_and_open (SkWindow   *window,
                 Fixture    *f,
                 const char *name)
{
  g_autoptr(GFile) folder = g_file_get_child (f->folder, name);

  sk_window_open (window, folder, TRUE);
  g_assert_nonnull (sk_window_get_project (window));
  g_assert_cmpstr (visible_page (window), ==, "workflow");
  drain ();

  return sk_window_get_project (window);
}

gboolean
action_enabled (SkWindow   *window,
                const char *name)
{
  return _sk_window_get_action_enabled (window, name);
}

void
activate (SkWindow   *window,
          const char *name)
{
  g_autofree char *action = g_strconcat ("win.", name, NULL);

  g_assert_true (action_enabled (window, name));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
}

/* Returns the visible window of @type that is transient for @parent. */
GtkWindow *
find_dialog (SkWindow *parent,
             GType     type)
{
  GList *toplevels = gtk_window_list_toplevels ();
  GtkWindow *found = NULL;

  for (GList *l = toplevels; l != NULL; l = l->next)
    {
      if (G_TYPE_CHECK_INSTANCE_TYPE (l->data, type) &&
          gtk_window_get_transient_for (l->data) == GTK_WINDOW (parent) &&
          gtk_widget_get_visible (l->data))
        {
          found = l->data;
          break;
        }
    }
  g_list_free (toplevels);

  return found;
}

guint
count_dialogs (SkWindow *parent,
               GType     type)
{
  GList *toplevels = gtk_window_list_toplevels ();
  guint n = 0;

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (G_TYPE_CHECK_INSTANCE_TYPE (l->data, type) &&
        gtk_window_get_transient_for (l->data) == GTK_WINDOW (parent))
      n++;
  g_list_free (toplevels);

  return n;
}

static GtkWidget *
find_button (GtkWidget  *widget,
             const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);

      if (found != NULL)
        return found;
    }

  return NULL;
}

/* Answers a message dialog by clicking the button labelled @label, the way
 * a person does, and waits until the dialog is gone.
 */
void
respond (AdwMessageDialog *dialog,
         const char       *label)
{
  GtkWidget *button = find_button (GTK_WIDGET (dialog), label);

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_signal_emit_by_name (button, "clicked");
  SK_TEST_WAIT_UNTIL (dialog == NULL, WAIT_MS);
}

/* Destroys @window without asking about unsaved changes, and checks that
 * nothing keeps it alive.
 */
void
destroy_window (SkWindow *window)
{
  GList *toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (gtk_window_get_transient_for (l->data) == GTK_WINDOW (window))
      gtk_window_destroy (l->data);
  g_list_free (toplevels);

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_destroy (GTK_WINDOW (window));
  SK_TEST_WAIT_UNTIL (window == NULL, WAIT_MS);
}

/* Steps ------------------------------------------------------------------ */

SkNode *
node_by_key (SkWindow   *window,
             const char *key)
{
  SkNode *node = sk_project_get_node_by_key (sk_window_get_project (window), key);

  g_assert_nonnull (node);
  return node;
}

SkNode *
add_step (SkProject  *project,
          const char *id,
          const char *name)
{
  g_autoptr(SkNode) node = sk_node_new (id, name);
  g_autoptr(GError) error = NULL;
  g_autofree char *task = g_strdup_printf ("Do what “%s” says.", name);

  /* The coding agent writes code only for a step with a task. */
  sk_node_set_input_text (node, task);
  sk_node_set_run (node, TRUE);
  sk_node_set_position (node, 100, 100);
  sk_project_add_node (project, node, &error);
  g_assert_no_error (error);

  return node;
}

/* Running and the coding agent ------------------------------------------- */

void
use_python (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);

  g_settings_set_string (settings, "python", python_path);
}

void
forget_python (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);

  g_settings_reset (settings, "python");
}

gboolean
skip_without_python (void)
{
  if (python_path != NULL)
    return FALSE;

  g_test_skip ("no Python interpreter");
  return TRUE;
}

/* Points the coding agent at a new fake server, through the settings that
 * Preferences keeps; the key comes from the environment (see
 * sk_test_window_init()), so that no keyring is needed. */
SkFakeLlm *
use_agent (void)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);
  SkFakeLlm *fake = sk_fake_llm_new ();

  sk_fake_llm_set_recycle (fake, FALSE);
  g_settings_set_string (settings, "llm-provider", "openai");
  g_settings_set_string (settings, "llm-base-url", sk_fake_llm_get_base_url (fake, SK_FAKE_LLM_DIALECT_OPENAI));
  g_settings_set_string (settings, "llm-model", "fake-coder");

  return fake;
}

void
forget_agent (SkFakeLlm *fake)
{
  g_autoptr(GSettings) settings = g_settings_new (SK_SETTINGS_SCHEMA_ID);

  g_settings_reset (settings, "llm-provider");
  g_settings_reset (settings, "llm-base-url");
  g_settings_reset (settings, "llm-model");
  if (fake != NULL)
    sk_fake_llm_free (fake);
}

/* Fixture ----------------------------------------------------------------- */

void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = sk_test_make_tmp_dir ("window");
  f->folder = g_file_new_for_path (f->dir);
}

static void
remove_recovery (GFile *folder)
{
  g_autofree char *path = recovery_path (folder);

  g_unlink (path);
}

void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
  g_autoptr(GDir) dir = NULL;
  const char *name;

  for (GList *l = windows; l != NULL; l = l->next)
    if (SK_IS_WINDOW (l->data))
      destroy_window (l->data);
  g_list_free (windows);
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));

  /* No test leaves a recovery file behind, neither for the workflow nor for
   * one created inside its folder. */
  remove_recovery (f->folder);
  dir = g_dir_open (f->dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (f->folder, name);

      remove_recovery (child);
    }

  sk_test_remove_tree (f->dir);
  g_clear_object (&f->folder);
  g_free (f->dir);
}

/* Setup ------------------------------------------------------------------- */

static char *
find_python (void)
{
  g_autofree char *python3 = NULL;

  /* Debian's interpreter, when there is one; see TESTING.md. */
  if (g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup ("/usr/bin/python3");

  python3 = g_find_program_in_path ("python3");
  if (python3 == NULL)
    return NULL;

  return sk_test_find_python ();
}

/**
 * sk_test_window_init:
 * @argc: the program's argument count
 * @argv: the program's arguments
 *
 * Initializes GTest, GTK and libadwaita, and registers the application
 * that new_window() opens windows of. Without a display it reports a TAP
 * skip of the whole program.
 *
 * Returns: %FALSE when there is no display and the program should end
 */
gboolean
sk_test_window_init (int    *argc,
                     char ***argv)
{
  g_autoptr(GError) error = NULL;

  g_test_init (argc, argv, NULL);

  /* The coding agent is whatever a test sets up in the settings, never one
   * from the environment of whoever runs the tests; its key comes from here,
   * set before any thread starts, so that no keyring is needed. */
  g_unsetenv ("SKELE_LLM_PROVIDER");
  g_unsetenv ("SKELE_LLM_BASE_URL");
  g_unsetenv ("SKELE_LLM_MODEL");
  g_setenv ("SKELE_LLM_API_KEY", "test-key", TRUE);

  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return FALSE;
    }
  adw_init ();
  sk_widgets_init ();

  python_path = find_python ();

  /* A real application, so that windows get its actions, accelerators and
   * settings; non-unique, so that tests never find each other. */
  app = sk_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sk_application_get_settings (app));

  return TRUE;
}

/**
 * sk_test_window_run:
 *
 * Runs the tests that were added, then lets the application go.
 *
 * Returns: the exit status for main()
 */
int
sk_test_window_run (void)
{
  int status = g_test_run ();

  /* A registered GtkApplication keeps a reference to itself (a plain
   * gtk_application_new() one does too), so it cannot be checked for
   * leaks; the windows are, one by one. */
  g_object_unref (app);
  g_clear_pointer (&python_path, g_free);

  return status;
}
