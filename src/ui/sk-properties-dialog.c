/* sk-properties-dialog.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-properties-dialog"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sk-properties-dialog.h"

struct _SkPropertiesDialog
{
  AdwWindow       parent_instance;

  SkProject      *project;
  SkNode         *node;
  SkHistory      *history;
  gboolean        syncing;

  GtkEntry       *name_entry;
  GtkEntry       *description_entry;
  GtkSourceView  *json_view;
  GtkLabel       *error_label;
  GtkButton      *apply_button;
};

G_DEFINE_FINAL_TYPE (SkPropertiesDialog, sk_properties_dialog, ADW_TYPE_WINDOW)

static const char *
name_member (SkPropertiesDialog *self)
{
  return self->node != NULL ? "name" : "process_name";
}

static const char *
description_member (SkPropertiesDialog *self)
{
  return self->node != NULL ? "description" : "process_description";
}

static char *
object_to_text (JsonObject *object)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (root, object);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);

  return json_generator_to_data (generator, NULL);
}

static GtkTextBuffer *
json_buffer (SkPropertiesDialog *self)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->json_view));
}

static JsonObject *
parse_text (SkPropertiesDialog  *self,
            GError             **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  GtkTextIter start, end;
  JsonNode *root;

  gtk_text_buffer_get_bounds (json_buffer (self), &start, &end);
  text = gtk_text_buffer_get_text (json_buffer (self), &start, &end, FALSE);

  if (!json_parser_load_from_data (parser, text, -1, error))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                           _("The JSON must be one object, between { and }"));
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

static void
show_error (SkPropertiesDialog *self,
            const char         *message)
{
  gtk_label_set_text (self->error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), message != NULL);
}

/* The entries are authoritative for the name and the description: their
 * values replace whatever the JSON text says. */
static void
apply_entries (SkPropertiesDialog *self,
               JsonObject         *object)
{
  const char *description = gtk_editable_get_text (GTK_EDITABLE (self->description_entry));

  json_object_set_string_member (object, name_member (self),
                                 gtk_editable_get_text (GTK_EDITABLE (self->name_entry)));
  if (description[0] != '\0' || json_object_has_member (object, description_member (self)))
    json_object_set_string_member (object, description_member (self), description);
}

/* Checks the edited JSON against the rest of the workflow by loading the
 * result into a scratch workflow and validating it, so that a bad edit is
 * refused with the same messages that `skele validate` prints. Only the
 * problems the edit makes refuse it: a workflow with several problems must
 * be repairable one at a time. */
static JsonObject *
build_checked (SkPropertiesDialog  *self,
               GError             **error)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonObject) whole = NULL;
  g_autoptr(SkProject) scratch = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GString) messages = NULL;
  g_autofree char *data = NULL;

  object = parse_text (self, error);
  if (object == NULL)
    return NULL;
  apply_entries (self, object);

  if (self->node != NULL)
    {
      JsonObject *nodes;

      whole = sk_project_to_json (self->project);
      nodes = json_object_get_object_member (whole, "nodes");
      json_object_set_object_member (nodes, sk_node_get_id (self->node), json_object_ref (object));
      data = object_to_text (whole);
    }
  else
    data = object_to_text (object);

  scratch = sk_project_load_from_data (data, -1, sk_project_get_folder (self->project), error);
  if (scratch == NULL)
    return NULL;

  before = sk_project_validate (self->project);
  after = sk_project_validate (scratch);
  problems = sk_problems_new_since (before, after);
  messages = g_string_new (NULL);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (messages->len > 0)
        g_string_append_c (messages, '\n');
      g_string_append (messages, problem->message);
    }

  if (messages->len > 0)
    {
      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID, messages->str);
      return NULL;
    }

  return g_steal_pointer (&object);
}

/**
 * sk_properties_dialog_apply:
 * @self: a #SkPropertiesDialog
 * @error: return location for a #GError
 *
 * Validates the edited properties and, if they are valid, applies them to
 * the step or the workflow as one undoable step.
 *
 * Returns: %TRUE if the edit was applied
 */
gboolean
sk_properties_dialog_apply (SkPropertiesDialog  *self,
                            GError             **error)
{
  g_autoptr(JsonObject) object = NULL;
  gboolean ok;

  g_return_val_if_fail (SK_IS_PROPERTIES_DIALOG (self), FALSE);

  object = build_checked (self, error);
  if (object == NULL)
    return FALSE;

  if (self->history != NULL)
    sk_history_begin (self->history, self->node != NULL ? _("Edit Step Properties") : _("Edit Workflow Properties"));

  if (self->node != NULL)
    ok = sk_node_update_from_json (self->node, object, error);
  else
    ok = sk_project_update_from_json (self->project, object, error);

  if (self->history != NULL)
    sk_history_end (self->history);

  return ok;
}

static void
apply_clicked_cb (SkPropertiesDialog *self)
{
  g_autoptr(GError) error = NULL;

  if (!sk_properties_dialog_apply (self, &error))
    {
      show_error (self, error->message);
      return;
    }

  gtk_window_destroy (GTK_WINDOW (self));
}

static void
entry_changed_cb (SkPropertiesDialog *self)
{
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *text = NULL;

  if (self->syncing)
    return;

  object = parse_text (self, NULL);
  if (object == NULL)
    return;

  apply_entries (self, object);
  text = object_to_text (object);

  self->syncing = TRUE;
  gtk_text_buffer_set_text (json_buffer (self), text, -1);
  self->syncing = FALSE;
}

static void
json_changed_cb (SkPropertiesDialog *self)
{
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;

  if (self->syncing)
    return;

  object = parse_text (self, &error);
  if (object == NULL)
    {
      show_error (self, error->message);
      gtk_widget_set_sensitive (GTK_WIDGET (self->apply_button), FALSE);
      return;
    }

  show_error (self, NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->apply_button), TRUE);

  self->syncing = TRUE;
  if (json_object_has_member (object, name_member (self)) &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (object, name_member (self))))
    gtk_editable_set_text (GTK_EDITABLE (self->name_entry),
                           json_object_get_string_member_with_default (object, name_member (self), ""));
  if (json_object_has_member (object, description_member (self)) &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (object, description_member (self))))
    gtk_editable_set_text (GTK_EDITABLE (self->description_entry),
                           json_object_get_string_member_with_default (object, description_member (self), ""));
  self->syncing = FALSE;
}

static void
update_scheme (SkPropertiesDialog *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");

  if (scheme == NULL)
    scheme = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "oblivion" : "classic");
  gtk_source_buffer_set_style_scheme (GTK_SOURCE_BUFFER (json_buffer (self)), scheme);
}

/**
 * sk_properties_dialog_new:
 * @project: the workflow
 * @node: (nullable): the step to edit, or %NULL to edit the workflow itself
 * @history: (nullable): where the edit is recorded for undo
 *
 * Returns: (transfer full): a dialog that edits @node's or @project's name,
 *   description and JSON
 */
SkPropertiesDialog *
sk_properties_dialog_new (SkProject *project,
                          SkNode    *node,
                          SkHistory *history)
{
  SkPropertiesDialog *self;
  g_autoptr(JsonObject) object = NULL;
  g_autofree char *text = NULL;
  GtkSourceLanguage *language;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  self = g_object_new (SK_TYPE_PROPERTIES_DIALOG, NULL);
  self->project = g_object_ref (project);
  self->node = node != NULL ? g_object_ref (node) : NULL;
  self->history = history != NULL ? g_object_ref (history) : NULL;

  if (node != NULL)
    {
      g_autofree char *title = g_strdup_printf (_("Step “%s”"), sk_node_get_name (node));

      object = sk_node_to_json (node);
      gtk_window_set_title (GTK_WINDOW (self), title);
    }
  else
    {
      object = sk_project_to_json (project);
      gtk_window_set_title (GTK_WINDOW (self), _("Workflow Properties"));
    }

  language = gtk_source_language_manager_get_language (gtk_source_language_manager_get_default (), "json");
  if (language != NULL)
    gtk_source_buffer_set_language (GTK_SOURCE_BUFFER (json_buffer (self)), language);

  text = object_to_text (object);
  self->syncing = TRUE;
  gtk_text_buffer_set_text (json_buffer (self), text, -1);
  gtk_editable_set_text (GTK_EDITABLE (self->name_entry),
                         node != NULL ? sk_node_get_name (node) : sk_project_get_name (project));
  gtk_editable_set_text (GTK_EDITABLE (self->description_entry),
                         node != NULL ? sk_node_get_description (node) : sk_project_get_description (project));
  self->syncing = FALSE;

  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->apply_button));
  gtk_widget_grab_focus (GTK_WIDGET (self->name_entry));

  return self;
}

static void
sk_properties_dialog_dispose (GObject *object)
{
  SkPropertiesDialog *self = SK_PROPERTIES_DIALOG (object);

  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_PROPERTIES_DIALOG);
  g_clear_object (&self->project);
  g_clear_object (&self->node);
  g_clear_object (&self->history);

  G_OBJECT_CLASS (sk_properties_dialog_parent_class)->dispose (object);
}

static void
sk_properties_dialog_class_init (SkPropertiesDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_properties_dialog_dispose;

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-properties-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SkPropertiesDialog, name_entry);
  gtk_widget_class_bind_template_child (widget_class, SkPropertiesDialog, description_entry);
  gtk_widget_class_bind_template_child (widget_class, SkPropertiesDialog, json_view);
  gtk_widget_class_bind_template_child (widget_class, SkPropertiesDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, SkPropertiesDialog, apply_button);
  gtk_widget_class_bind_template_callback (widget_class, apply_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, entry_changed_cb);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
sk_properties_dialog_init (SkPropertiesDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_object (json_buffer (self), "changed", G_CALLBACK (json_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (update_scheme), self, G_CONNECT_SWAPPED);
  update_scheme (self);
}
