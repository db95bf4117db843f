/* sk-project.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-project"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-json.h"
#include "sk-project-private.h"
#include "sk-step-folder.h"

/* The workflow object: its nodes as a list model, its properties and the
 * names of its files. Loading and saving are in sk-project-io.c, the graph
 * and its validation in sk-project-graph.c. */

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SkProject, sk_project, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

G_DEFINE_QUARK (sk-project-error-quark, sk_project_error)

enum {
  PROP_0,
  PROP_FOLDER,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_MODIFIED,
  PROP_N_ITEMS,
  N_PROPS
};

enum {
  NODE_ADDED,
  NODE_REMOVED,
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties [N_PROPS];
static guint signals [N_SIGNALS];

/* Properties whose change makes a node's last result out of date. */
static const char * const staling_properties[] = {
  "name", "priors", "input-text", "input-files", NULL
};

static void
invalidate_graph (SkProject *self)
{
  g_clear_pointer (&self->successors, g_hash_table_unref);
}

/* Marks the workflow as changed since it was saved or loaded, and tells
 * whoever saves it. */
void
_sk_project_set_modified (SkProject *self)
{
  g_return_if_fail (SK_IS_PROJECT (self));

  if (!self->modified)
    {
      self->modified = TRUE;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODIFIED]);
    }

  g_signal_emit (self, signals [CHANGED], 0);
}

static void
node_changed_cb (SkProject *self,
                 SkNode    *node)
{
  g_assert (SK_IS_PROJECT (self));
  g_assert (SK_IS_NODE (node));

  invalidate_graph (self);
  _sk_project_set_modified (self);
}

static void
node_notify_cb (SkProject  *self,
                GParamSpec *pspec,
                SkNode     *node)
{
  g_assert (SK_IS_PROJECT (self));
  g_assert (SK_IS_NODE (node));

  if (g_strv_contains (staling_properties, pspec->name))
    sk_project_mark_stale (self, node);
}

void
_sk_project_attach_node (SkProject *self,
                         guint      position,
                         SkNode    *node)
{
  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (SK_IS_NODE (node));

  g_ptr_array_insert (self->nodes, position, g_object_ref (node));
  g_hash_table_insert (self->by_id, g_strdup (sk_node_get_id (node)), node);

  /* Not g_signal_connect_object(): each of those adds a weak reference to
   * the project, and GLib grows that list by one at a time, which made
   * loading a workflow of many steps slow down with the square of their
   * number. The handlers are taken off when the node leaves the project or
   * the project goes. */
  g_signal_connect_swapped (node, "changed", G_CALLBACK (node_changed_cb), self);
  g_signal_connect_swapped (node, "notify", G_CALLBACK (node_notify_cb), self);
}

static GType
list_model_get_item_type (GListModel *model)
{
  return SK_TYPE_NODE;
}

static guint
list_model_get_n_items (GListModel *model)
{
  return SK_PROJECT (model)->nodes->len;
}

static gpointer
list_model_get_item (GListModel *model,
                     guint       position)
{
  SkProject *self = SK_PROJECT (model);

  if (position >= self->nodes->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->nodes, position));
}

/*
 * Gives the workflow the folder it is saved in, when it had none.
 */
void
_sk_project_set_folder (SkProject *self,
                        GFile     *folder)
{
  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (G_IS_FILE (folder));

  if (g_set_object (&self->folder, folder))
    g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_FOLDER]);
}

/**
 * sk_project_get_tokens:
 * @prompt_tokens: (out) (optional): tokens the coding agent read, over all nodes
 * @completion_tokens: (out) (optional): tokens it wrote
 *
 * Sums the nodes' token counts (see sk_node_get_tokens()).
 */
void
sk_project_get_tokens (SkProject *self,
                       guint64   *prompt_tokens,
                       guint64   *completion_tokens)
{
  guint64 prompt_sum = 0, completion_sum = 0;
  guint n;

  g_return_if_fail (SK_IS_PROJECT (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self), i);
      guint64 prompt, completion;

      sk_node_get_tokens (node, &prompt, &completion);
      prompt_sum += prompt;
      completion_sum += completion;
    }

  if (prompt_tokens != NULL)
    *prompt_tokens = prompt_sum;
  if (completion_tokens != NULL)
    *completion_tokens = completion_sum;
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = list_model_get_item_type;
  iface->get_n_items = list_model_get_n_items;
  iface->get_item = list_model_get_item;
}

static void
sk_project_dispose (GObject *object)
{
  SkProject *self = (SkProject *)object;

  invalidate_graph (self);
  for (guint i = 0; self->nodes != NULL && i < self->nodes->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (self->nodes, i), self);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->nodes, g_ptr_array_unref);
  g_clear_pointer (&self->extra, json_object_unref);
  g_clear_pointer (&self->skele_extra, json_object_unref);
  g_clear_pointer (&self->invalid_nodes, json_object_unref);
  g_clear_pointer (&self->load_problems, g_ptr_array_unref);
  g_clear_object (&self->folder);

  G_OBJECT_CLASS (sk_project_parent_class)->dispose (object);
}

static void
sk_project_finalize (GObject *object)
{
  SkProject *self = (SkProject *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->description, g_free);
  g_clear_pointer (&self->python, g_free);

  G_OBJECT_CLASS (sk_project_parent_class)->finalize (object);
}

static void
sk_project_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  SkProject *self = SK_PROJECT (object);

  switch (prop_id)
    {
    case PROP_FOLDER:
      g_value_set_object (value, self->folder);
      break;

    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;

    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;

    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;

    case PROP_N_ITEMS:
      g_value_set_uint (value, self->nodes->len);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_project_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  SkProject *self = SK_PROJECT (object);

  switch (prop_id)
    {
    case PROP_FOLDER:
      self->folder = g_value_dup_object (value);
      break;

    case PROP_NAME:
      sk_project_set_name (self, g_value_get_string (value));
      break;

    case PROP_DESCRIPTION:
      sk_project_set_description (self, g_value_get_string (value));
      break;

    case PROP_MODIFIED:
      sk_project_set_modified (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_project_class_init (SkProjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sk_project_dispose;
  object_class->finalize = sk_project_finalize;
  object_class->get_property = sk_project_get_property;
  object_class->set_property = sk_project_set_property;

  properties [PROP_FOLDER] =
    g_param_spec_object ("folder", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties [PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, "",
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties [PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkProject::node-added:
   * @self: a #SkProject
   * @node: the node
   *
   * Emitted after @node was added, together with #GListModel::items-changed.
   */
  signals [NODE_ADDED] =
    g_signal_new ("node-added",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_NODE);

  /**
   * SkProject::node-removed:
   * @self: a #SkProject
   * @node: the node
   *
   * Emitted after @node was removed and the other nodes no longer refer to it.
   */
  signals [NODE_REMOVED] =
    g_signal_new ("node-removed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, SK_TYPE_NODE);

  /**
   * SkProject::changed:
   * @self: a #SkProject
   *
   * Emitted after anything that is saved in the workflow file changed.
   */
  signals [CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
sk_project_init (SkProject *self)
{
  self->name = g_strdup ("");
  self->description = g_strdup ("");
  self->nodes = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->extra = json_object_new ();
  self->skele_extra = json_object_new ();
  self->invalid_nodes = json_object_new ();
  self->load_problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
}

/**
 * sk_project_new:
 * @folder: (nullable): the workflow's folder
 *
 * Returns: (transfer full): a new, empty workflow
 */
SkProject *
sk_project_new (GFile *folder)
{
  g_return_val_if_fail (folder == NULL || G_IS_FILE (folder), NULL);

  return g_object_new (SK_TYPE_PROJECT, "folder", folder, NULL);
}


GFile *
sk_project_get_folder (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return self->folder;
}

/**
 * sk_project_get_file:
 * @self: a #SkProject
 *
 * Returns: (transfer full) (nullable): the workflow's process.json
 */
GFile *
sk_project_get_file (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  if (self->folder == NULL)
    return NULL;

  return g_file_get_child (self->folder, SK_PROJECT_FILE_NAME);
}

/**
 * sk_project_get_node_folder:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer full) (nullable): the folder that holds the node's
 *   script and files
 */
GFile *
sk_project_get_node_folder (SkProject *self,
                            SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  if (self->folder == NULL || sk_node_get_key (node)[0] == '\0')
    return NULL;

  return g_file_get_child (self->folder, sk_node_get_key (node));
}

/**
 * sk_project_get_node_script:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer full) (nullable): the node's script, `KEY/KEY.py`
 */
GFile *
sk_project_get_node_script (SkProject *self,
                            SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  if (self->folder == NULL || sk_node_get_key (node)[0] == '\0')
    return NULL;

  return sk_step_folder_get_file (self->folder, sk_node_get_key (node), SK_STEP_FILE_SCRIPT);
}

/**
 * sk_project_get_node_script_path:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * The path of sk_project_get_node_script(), made without a #GFile, for
 * code that looks at every step's script.
 *
 * Returns: (transfer full) (nullable): the node's script, `KEY/KEY.py`,
 *   or %NULL when the workflow has no local folder or the node no key
 */
char *
sk_project_get_node_script_path (SkProject *self,
                                 SkNode    *node)
{
  const char *folder;
  const char *key;
  g_autofree char *relative = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  key = sk_node_get_key (node);
  if (self->folder == NULL || key[0] == '\0' || (folder = g_file_peek_path (self->folder)) == NULL)
    return NULL;

  relative = sk_step_folder_relative_path (key, SK_STEP_FILE_SCRIPT);
  return g_build_filename (folder, key, relative, NULL);
}

const char *
sk_project_get_name (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return self->name;
}

void
sk_project_set_name (SkProject  *self,
                     const char *name)
{
  g_return_if_fail (SK_IS_PROJECT (self));

  if (name == NULL)
    name = "";

  if (g_strcmp0 (self->name, name) == 0)
    return;

  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_NAME]);
  _sk_project_set_modified (self);
}

const char *
sk_project_get_description (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return self->description;
}

void
sk_project_set_description (SkProject  *self,
                            const char *description)
{
  g_return_if_fail (SK_IS_PROJECT (self));

  if (description == NULL)
    description = "";

  if (g_strcmp0 (self->description, description) == 0)
    return;

  g_free (self->description);
  self->description = g_strdup (description);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_DESCRIPTION]);
  _sk_project_set_modified (self);
}

/**
 * sk_project_get_python:
 * @self: a #SkProject
 *
 * Returns: (nullable): the Python interpreter this workflow asks for in
 *   its "skele" settings, or %NULL to use the default
 */
const char *
sk_project_get_python (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return self->python;
}

/**
 * sk_project_get_network:
 * @self: a #SkProject
 *
 * Returns: whether the workflow's "skele" settings let every step use the
 *   network (`"network": true`); a step may also ask for it alone
 *   (sk_node_get_network())
 */
gboolean
sk_project_get_network (SkProject *self)
{
  gboolean network = FALSE;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  return sk_json_get_boolean (self->skele_extra, "network", &network) && network;
}

gboolean
sk_project_get_modified (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  return self->modified;
}

void
sk_project_set_modified (SkProject *self,
                         gboolean   modified)
{
  g_return_if_fail (SK_IS_PROJECT (self));

  modified = !!modified;
  if (self->modified == modified)
    return;

  self->modified = modified;
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_MODIFIED]);
}

guint
sk_project_get_n_nodes (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), 0);

  return self->nodes->len;
}

/**
 * sk_project_get_node:
 * @self: a #SkProject
 * @id: a node identifier
 *
 * Returns: (transfer none) (nullable): the node, or %NULL
 */
SkNode *
sk_project_get_node (SkProject  *self,
                     const char *id)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  return g_hash_table_lookup (self->by_id, id);
}

/**
 * sk_project_get_node_by_key:
 * @self: a #SkProject
 * @key: a node key, as in folder names
 *
 * Returns: (transfer none) (nullable): the first node with @key, or %NULL
 */
SkNode *
sk_project_get_node_by_key (SkProject  *self,
                            const char *key)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);

      if (g_str_equal (sk_node_get_key (node), key))
        return node;
    }

  return NULL;
}

/**
 * sk_project_lookup_node:
 * @self: a #SkProject
 * @id_or_key: a node's key, identifier or name, as a user types it
 *
 * Returns: (transfer none) (nullable): the node, or %NULL
 */
SkNode *
sk_project_lookup_node (SkProject  *self,
                        const char *id_or_key)
{
  g_autofree char *key = NULL;
  SkNode *node;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (id_or_key != NULL, NULL);

  if ((node = sk_project_get_node_by_key (self, id_or_key)) != NULL)
    return node;

  if ((node = sk_project_get_node (self, id_or_key)) != NULL)
    return node;

  key = sk_node_key_from_name (id_or_key);
  if (key[0] != '\0')
    return sk_project_get_node_by_key (self, key);

  return NULL;
}

/**
 * sk_project_add_node:
 * @self: a #SkProject
 * @node: a node that belongs to no workflow
 * @error: return location for a #GError
 *
 * Adds @node after the other nodes; see sk_project_insert_node().
 *
 * Returns: %TRUE if @node was added; %FALSE if its identifier is taken
 */
gboolean
sk_project_add_node (SkProject  *self,
                     SkNode     *node,
                     GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  return sk_project_insert_node (self, self->nodes->len, node, error);
}

/**
 * sk_project_insert_node:
 * @self: a #SkProject
 * @position: where @node goes in the list of nodes, at most the number of
 *   nodes
 * @node: a node that belongs to no workflow
 * @error: return location for a #GError
 *
 * Adds @node so that it becomes the node at @position, which is also its
 * place in the saved file. Undo uses it to put a deleted node back where it
 * was.
 *
 * Returns: %TRUE if @node was added; %FALSE if its identifier is taken
 */
gboolean
sk_project_insert_node (SkProject  *self,
                        guint       position,
                        SkNode     *node,
                        GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (position <= self->nodes->len, FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  if (g_hash_table_contains (self->by_id, sk_node_get_id (node)))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("There is already a node with the identifier “%s”."),
                   sk_node_get_id (node));
      return FALSE;
    }

  _sk_project_attach_node (self, position, node);
  invalidate_graph (self);

  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_ITEMS]);
  g_signal_emit (self, signals [NODE_ADDED], 0, node);
  _sk_project_set_modified (self);

  return TRUE;
}

/**
 * sk_project_remove_node:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Removes @node and every edge to or from it. The node's folder on disk is
 * left alone.
 */
void
sk_project_remove_node (SkProject *self,
                        SkNode    *node)
{
  g_autoptr(SkNode) hold = NULL;
  guint position;

  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (SK_IS_NODE (node));

  if (!g_ptr_array_find (self->nodes, node, &position))
    return;

  hold = g_object_ref (node);
  g_signal_handlers_disconnect_by_data (node, self);
  g_hash_table_remove (self->by_id, sk_node_get_id (node));
  g_ptr_array_remove_index (self->nodes, position);
  invalidate_graph (self);

  for (guint i = 0; i < self->nodes->len; i++)
    sk_node_remove_prior (g_ptr_array_index (self->nodes, i), sk_node_get_id (node));

  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_ITEMS]);
  g_signal_emit (self, signals [NODE_REMOVED], 0, node);
  _sk_project_set_modified (self);
}

/**
 * sk_project_next_node_id:
 * @self: a #SkProject
 *
 * Returns: (transfer full): an unused identifier: one more than the largest
 *   numeric identifier in the workflow
 */
char *
sk_project_next_node_id (SkProject *self)
{
  guint64 largest = 0;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      const char *id = sk_node_get_id (g_ptr_array_index (self->nodes, i));
      guint64 value;

      if (g_ascii_string_to_unsigned (id, 10, 0, G_MAXUINT32, &value, NULL))
        largest = MAX (largest, value);
    }

  for (guint64 candidate = largest + 1; ; candidate++)
    {
      g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT, candidate);

      if (!g_hash_table_contains (self->by_id, id) &&
          !json_object_has_member (self->invalid_nodes, id))
        return g_steal_pointer (&id);
    }
}

/**
 * sk_project_unique_name:
 * @self: a #SkProject
 * @base: a name for a new node, such as "step"
 *
 * Returns: (transfer full): @base, or @base followed by a number, whose key
 *   no node has yet
 */
char *
sk_project_unique_name (SkProject  *self,
                        const char *base)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (base != NULL, NULL);

  for (guint n = 1; ; n++)
    {
      g_autofree char *name = n == 1 ? g_strdup (base) : g_strdup_printf ("%s %u", base, n);
      g_autofree char *key = sk_node_key_from_name (name);

      if (key[0] != '\0' && sk_project_get_node_by_key (self, key) == NULL)
        return g_steal_pointer (&name);
    }
}

/**
 * sk_project_check_name:
 * @self: a #SkProject
 * @node: (nullable): the node being renamed, or %NULL for a new node
 * @name: the proposed name
 * @error: return location for a #GError
 *
 * Checks that @name gives a key that is not empty and that no other node
 * has, so that the node gets a folder of its own.
 *
 * Returns: %TRUE if @name can be used
 */
gboolean
sk_project_check_name (SkProject   *self,
                       SkNode      *node,
                       const char  *name,
                       GError     **error)
{
  g_autofree char *key = NULL;
  SkNode *other;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  key = sk_node_key_from_name (name);
  if (key[0] == '\0')
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("The name “%s” has no letters or digits, so it cannot name the step’s "
                     "folder. Choose a name with letters or digits."), name);
      return FALSE;
    }

  for (guint i = 0; i < self->nodes->len; i++)
    {
      other = g_ptr_array_index (self->nodes, i);

      if (other != node && g_str_equal (sk_node_get_key (other), key))
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                       _("The name “%s” would share the folder “%s” with “%s”. "
                         "Choose another name."), name, key, sk_node_get_name (other));
          return FALSE;
        }
    }

  return TRUE;
}

