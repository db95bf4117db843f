/* sk-window-export.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Export… and Import… (DESIGN §11): the open workflow written in another
 * format, and a Mermaid flowchart made a new workflow. Drawing a picture
 * can take a while for a large workflow, so Graphviz works in a thread
 * while a notification says so.
 */

#define G_LOG_DOMAIN "sk-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sk-window-private.h"

typedef struct
{
  const char *format;
  const char *extension;   /* NULL for a format that is a folder. */
  const char *label;
} ExportFormat;

static const ExportFormat export_formats[] = {
  { "mermaid", "mmd", N_("Mermaid flowchart (.mmd)") },
  { "dot", "gv", N_("Graphviz graph (.gv)") },
  { "svg", "svg", N_("SVG picture (.svg)") },
  { "png", "png", N_("PNG picture (.png)") },
  { "html", "html", N_("HTML report (.html)") },
  { "ipynb", "ipynb", N_("Jupyter notebook (.ipynb)") },
  { "snakemake", NULL, N_("Snakemake workflow, for a cluster (folder)") },
  { "python", NULL, N_("Python program (folder)") },
};

/* The notes of an import, shown in full up to this many. */
#define MAX_NOTES_SHOWN 12

static void
show_message (SkWindow   *self,
              const char *heading,
              const char *body)
{
  GtkWidget *dialog;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Export ------------------------------------------------------------------- */

typedef struct
{
  SkWindow           *self;
  AdwToast           *progress;
  SkProject          *copy;
  GFile              *file;
  char               *name;
  const ExportFormat *format;
} ExportJob;

/* The window and the toast are let go on the main thread, in
 * export_done(), never in the thread where the task may be freed. */
static void
export_job_free (ExportJob *job)
{
  g_clear_object (&job->self);
  g_clear_object (&job->progress);
  g_clear_object (&job->copy);
  g_clear_object (&job->file);
  g_free (job->name);
  g_free (job);
}

static gboolean
write_text (GFile       *file,
            char        *text,
            GError     **error)
{
  g_autofree char *owned = text;

  return g_file_replace_contents (file, owned, strlen (owned), NULL, FALSE, G_FILE_CREATE_NONE,
                                  NULL, NULL, error);
}

/* Works on the job's copy of the workflow only, which no one else holds. */
static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportJob *job = task_data;
  const char *format = job->format->format;
  GError *error = NULL;
  gboolean ok;

  if (g_str_equal (format, "mermaid"))
    ok = write_text (job->file, sk_export_mermaid (job->copy), &error);
  else if (g_str_equal (format, "dot"))
    ok = write_text (job->file, sk_export_dot (job->copy), &error);
  else if (g_str_equal (format, "html"))
    ok = sk_export_html (job->copy, job->file, &error);
  else if (g_str_equal (format, "ipynb"))
    ok = sk_export_notebook (job->copy, job->file, &error);
  else if (g_str_equal (format, "snakemake"))
    ok = sk_export_snakemake (job->copy, job->file, &error);
  else if (g_str_equal (format, "python"))
    ok = sk_export_python (job->copy, job->file, &error);
  else
    {
      g_autoptr(GBytes) bytes = sk_export_graphviz (job->copy, format, &error);

      ok = bytes != NULL &&
           g_file_replace_contents (job->file, g_bytes_get_data (bytes, NULL),
                                    g_bytes_get_size (bytes), NULL, FALSE, G_FILE_CREATE_NONE,
                                    NULL, cancellable, &error);
    }

  if (!ok)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
export_done (SkWindow   *self,
             ExportJob  *job,
             GError     *error)
{
  g_autofree char *message = NULL;
  g_autofree char *basename = g_file_get_basename (job->file);

  self->exporting = FALSE;
  if (job->progress != NULL)
    adw_toast_dismiss (job->progress);
  g_clear_object (&job->progress);

  if (error != NULL)
    {
      /* Translators: %s is a file or folder name. */
      message = g_strdup_printf (_("%s could not be written: %s"), basename, error->message);
      show_message (self, _("Could Not Export the Workflow"), message);
      return;
    }

  if (job->format->extension == NULL)
    /* Translators: the first %s is a workflow's name, the second a folder name. */
    message = g_strdup_printf (_("Exported “%s” to %s; its README.md says how to run it"),
                               job->name, basename);
  else
    /* Translators: the first %s is a workflow's name, the second a file name. */
    message = g_strdup_printf (_("Exported “%s” to %s"), job->name, basename);
  sk_window_show_toast (self, message);
}

static void
export_thread_done_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  ExportJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(SkWindow) self = g_steal_pointer (&job->self);
  g_autoptr(GError) error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  export_done (self, job, error);
}

/* A copy of the open workflow as it is now, with the states the canvas
 * shows, so that the export works on it in a thread while the workflow is
 * edited or run. */
static SkProject *
snapshot (SkProject  *project,
          GError    **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  SkProject *copy;

  data = sk_project_to_data (project, &length);
  copy = sk_project_load_from_data (data, length, sk_project_get_folder (project), error);
  if (copy == NULL)
    return NULL;

  for (guint i = 0; i < sk_project_get_n_nodes (copy); i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (copy), i);
      SkNode *live = sk_project_get_node (project, sk_node_get_id (node));

      if (live != NULL)
        sk_node_set_state (node, sk_node_get_state (live));
    }

  return copy;
}

static void
write_export (SkWindow          *self,
              const ExportFormat *format,
              GFile             *file)
{
  SkProject *project = _sk_window_project (self);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  ExportJob *job;

  if (project == NULL)
    return;

  job = g_new0 (ExportJob, 1);
  job->self = g_object_ref (self);
  job->file = g_object_ref (file);
  job->name = g_strdup (sk_project_get_name (project));
  job->format = format;
  job->copy = snapshot (project, &error);
  self->exporting = TRUE;

  if (job->copy == NULL)
    {
      export_done (self, job, error);
      export_job_free (job);
      return;
    }

  /* A flowchart or a graph is text written at once; the others can take a
   * while for a large workflow, so a notification says what is going on. */
  if (g_str_equal (format->format, "svg") || g_str_equal (format->format, "png"))
    /* Translators: %s is a workflow's name. */
    message = g_strdup_printf (_("Drawing “%s”…"), job->name);
  else if (!g_str_equal (format->format, "mermaid") && !g_str_equal (format->format, "dot"))
    /* Translators: %s is a workflow's name. */
    message = g_strdup_printf (_("Exporting “%s”…"), job->name);
  if (message != NULL)
    {
      /* It stays until the export is done. */
      job->progress = g_object_ref (_sk_window_add_toast (self, message, FALSE));
      adw_toast_set_timeout (job->progress, 0);
    }

  task = g_task_new (NULL, NULL, export_thread_done_cb, NULL);
  g_task_set_source_tag (task, write_export);
  g_task_set_task_data (task, job, (GDestroyNotify) export_job_free);
  g_task_run_in_thread (task, export_thread);
}

static void
export_file_response_cb (GtkNativeDialog *chooser,
                         int              response,
                         SkWindow        *self)
{
  const ExportFormat *format = g_object_get_data (G_OBJECT (chooser), "sk-format");
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);

  if (file != NULL)
    write_export (self, format, file);
}

/**
 * _sk_window_export_to:
 * @self: a #SkWindow
 * @format: "mermaid", "dot", "svg", "png", "html", "ipynb", "snakemake" or
 *   "python"
 * @file: where to write: a file, or an empty or new folder for "snakemake"
 *   and "python"
 *
 * Writes the open workflow to @file, as Export… does after its choosers.
 */
void
_sk_window_export_to (SkWindow   *self,
                      const char *format,
                      GFile      *file)
{
  g_return_if_fail (SK_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  for (guint i = 0; i < G_N_ELEMENTS (export_formats); i++)
    if (g_str_equal (export_formats[i].format, format))
      {
        write_export (self, &export_formats[i], file);
        return;
      }

  g_return_if_reached ();
}

static void
export_folder_chosen (SkWindow *self,
                      GFile    *folder)
{
  const ExportFormat *format = g_object_steal_data (G_OBJECT (self), "sk-export-format");

  if (format != NULL)
    write_export (self, format, folder);
}

static void
choose_export_file (SkWindow           *self,
                    const ExportFormat *format)
{
  SkProject *project = _sk_window_project (self);
  g_autofree char *key = sk_node_key_from_name (sk_project_get_name (project));
  g_autofree char *name = NULL;
  GtkFileChooserNative *chooser;
  GFile *folder = sk_project_get_folder (project);

  if (format->extension == NULL)
    {
      g_object_set_data (G_OBJECT (self), "sk-export-format", (gpointer) format);
      _sk_window_choose_folder (self, _("Choose an Empty Folder for the Export"), _("_Export"),
                                TRUE, export_folder_chosen);
      return;
    }

  name = g_strdup_printf ("%s.%s", key[0] != '\0' ? key : "workflow", format->extension);
  chooser = gtk_file_chooser_native_new (_("Export Workflow"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  if (folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_object_set_data (G_OBJECT (chooser), "sk-format", (gpointer) format);
  g_signal_connect_object (chooser, "response", G_CALLBACK (export_file_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
export_format_response_cb (AdwMessageDialog *dialog,
                           const char       *response,
                           SkWindow         *self)
{
  GtkDropDown *formats = g_object_get_data (G_OBJECT (dialog), "sk-formats");
  guint selected = gtk_drop_down_get_selected (formats);

  if (!g_str_equal (response, "choose") || selected >= G_N_ELEMENTS (export_formats))
    return;

  choose_export_file (self, &export_formats[selected]);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
  GtkWidget *dialog;
  GtkWidget *formats;

  if (_sk_window_project (self) == NULL)
    return;

  if (self->exporting)
    {
      sk_window_show_toast (self, _("An export is under way; wait for it to finish."));
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (export_formats); i++)
    gtk_string_list_append (labels, _(export_formats[i].label));

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Export Workflow"),
                                   _("A Mermaid flowchart keeps the steps, their tasks and how "
                                     "they connect, and can be imported again. A graph or a "
                                     "picture shows the workflow as the canvas draws it. An HTML "
                                     "report shows every step’s results in one file, and a "
                                     "notebook runs the workflow in Jupyter. A Snakemake "
                                     "workflow runs it on a computing cluster, and a Python "
                                     "program runs it without Skele-Code."));
  formats = gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&labels)), NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (formats), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Format"), -1);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), formats);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "choose", _("_Choose Where…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "choose", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "choose");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "sk-formats", formats);
  g_signal_connect_object (dialog, "response", G_CALLBACK (export_format_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (formats);
}

/* Import ------------------------------------------------------------------- */

static void
show_import_notes (SkWindow  *self,
                   GPtrArray *notes)
{
  g_autoptr(GString) body = g_string_new (NULL);

  for (guint i = 0; i < notes->len && i < MAX_NOTES_SHOWN; i++)
    {
      if (i > 0)
        g_string_append_c (body, '\n');
      g_string_append_printf (body, "• %s", (const char *) g_ptr_array_index (notes, i));
    }
  if (notes->len > MAX_NOTES_SHOWN)
    {
      g_string_append_c (body, '\n');
      g_string_append_printf (body, g_dngettext (GETTEXT_PACKAGE, "And %u more.", "And %u more.",
                                                 notes->len - MAX_NOTES_SHOWN),
                              notes->len - MAX_NOTES_SHOWN);
    }

  show_message (self, _("Some of the Flowchart Was Left Out"), body->str);
}

/**
 * _sk_window_import_into:
 * @self: a #SkWindow
 * @source: a Mermaid flowchart
 * @folder: the new workflow's folder
 *
 * Makes @source a workflow in @folder and opens it, as Import… does after
 * its choosers; says what went wrong, and writes nothing, when it cannot.
 */
void
_sk_window_import_into (SkWindow *self,
                        GFile    *source,
                        GFile    *folder)
{
  g_autoptr(GFile) process = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SkProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  g_autofree char *basename = g_file_get_basename (source);
  gsize length;
  SkWindow *target;

  g_return_if_fail (SK_IS_WINDOW (self));

  if (g_file_query_exists (process, NULL))
    {
      show_message (self, _("Could Not Import the Flowchart"),
                    _("That folder holds a workflow already. Choose an empty folder, so that "
                      "nothing is overwritten."));
      return;
    }

  if (!g_file_load_contents (source, NULL, &text, &length, NULL, &error) ||
      (project = sk_import_mermaid (text, length, notes, &error)) == NULL ||
      !sk_project_save_to_folder (project, folder, &error))
    {
      /* Translators: the first %s is a file name, the second what is wrong. */
      message = g_strdup_printf (_("%s: %s Nothing was written."), basename, error->message);
      show_message (self, _("Could Not Import the Flowchart"), message);
      return;
    }

  target = _sk_window_open_in_window (self, folder);
  if (notes->len > 0)
    show_import_notes (target, notes);
}

static void
import_folder_chosen (SkWindow *self,
                      GFile    *folder)
{
  g_autoptr(GFile) source = g_object_steal_data (G_OBJECT (self), "sk-import-source");

  if (source != NULL)
    _sk_window_import_into (self, source, folder);
}

static void
import_file_response_cb (GtkNativeDialog *chooser,
                         int              response,
                         SkWindow        *self)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);

  if (file == NULL)
    return;

  g_object_set_data_full (G_OBJECT (self), "sk-import-source", g_steal_pointer (&file), g_object_unref);
  _sk_window_choose_folder (self, _("Choose a Folder for the Imported Workflow"), _("_Import"), TRUE,
                            import_folder_chosen);
}

static void
import_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SkWindow *self = SK_WINDOW (widget);
  g_autoptr(GtkFileFilter) mermaid = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();
  GtkFileChooserNative *chooser;

  gtk_file_filter_set_name (mermaid, _("Mermaid flowcharts"));
  gtk_file_filter_add_suffix (mermaid, "mmd");
  gtk_file_filter_add_suffix (mermaid, "mermaid");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");

  chooser = gtk_file_chooser_native_new (_("Import a Mermaid Flowchart"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Next"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), mermaid);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (import_file_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
_sk_window_export_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.import", NULL, import_action);
}
