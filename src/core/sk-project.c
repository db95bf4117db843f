/* sk-project.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-project"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-node-private.h"
#include "sk-project-private.h"

struct _SkProject
{
  GObject      parent_instance;

  GFile       *folder;
  char        *name;
  char        *description;
  char        *python;

  /* Nodes in file order, and the same nodes by identifier. */
  GPtrArray   *nodes;
  GHashTable  *by_id;

  /* Successor lists by identifier, rebuilt when the graph changed. */
  GHashTable  *successors;

  /* Members this program does not know, kept for writing back unchanged. */
  JsonObject  *extra;
  JsonObject  *skele_extra;
  JsonObject  *invalid_nodes;

  /* Problems only visible while parsing, such as duplicate members. */
  GPtrArray   *load_problems;

  guint        modified : 1;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SkProject, sk_project, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

G_DEFINE_BOXED_TYPE (SkProblem, sk_problem, sk_problem_copy, sk_problem_free)

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

static const char * const known_members[] = {
  "process_name", "process_description", "project name", "project description",
  "nodes", "skele", NULL
};

/* Properties whose change makes a node's last result out of date. */
static const char * const staling_properties[] = {
  "name", "priors", "input-text", "input-files", NULL
};

SkProblem *
sk_problem_copy (const SkProblem *problem)
{
  SkProblem *copy = g_new0 (SkProblem, 1);

  copy->kind = problem->kind;
  copy->node_id = g_strdup (problem->node_id);
  copy->message = g_strdup (problem->message);
  copy->is_warning = problem->is_warning;

  return copy;
}

void
sk_problem_free (SkProblem *problem)
{
  if (problem == NULL)
    return;

  g_free (problem->node_id);
  g_free (problem->message);
  g_free (problem);
}

static void
add_problem (GPtrArray     *problems,
             SkProblemKind  kind,
             gboolean       is_warning,
             const char    *node_id,
             const char    *format,
             ...) G_GNUC_PRINTF (5, 6);

static void
add_problem (GPtrArray     *problems,
             SkProblemKind  kind,
             gboolean       is_warning,
             const char    *node_id,
             const char    *format,
             ...)
{
  SkProblem *problem = g_new0 (SkProblem, 1);
  va_list args;

  va_start (args, format);
  problem->message = g_strdup_vprintf (format, args);
  va_end (args);

  problem->kind = kind;
  problem->is_warning = !!is_warning;
  problem->node_id = g_strdup (node_id);

  g_ptr_array_add (problems, problem);
}

/* Names a node for messages: its name and, to tell apart nodes with similar
 * names, its identifier.
 */
static char *
describe_node (SkNode *node)
{
  const char *name = sk_node_get_name (node);

  if (name[0] == '\0')
    return g_strdup_printf (_("node %s"), sk_node_get_id (node));

  return g_strdup_printf ("“%s” (%s)", name, sk_node_get_id (node));
}

static void
invalidate_graph (SkProject *self)
{
  g_clear_pointer (&self->successors, g_hash_table_unref);
}

static void
set_modified (SkProject *self)
{
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
  set_modified (self);
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

static void
attach_node (SkProject *self,
             guint      position,
             SkNode    *node)
{
  g_ptr_array_insert (self->nodes, position, g_object_ref (node));
  g_hash_table_insert (self->by_id, g_strdup (sk_node_get_id (node)), node);

  g_signal_connect_object (node, "changed", G_CALLBACK (node_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (node, "notify", G_CALLBACK (node_notify_cb), self, G_CONNECT_SWAPPED);
}

static GHashTable *
get_successors (SkProject *self)
{
  if (self->successors != NULL)
    return self->successors;

  self->successors = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);
          GPtrArray *list;

          if (prior == NULL || prior == node)
            continue;

          list = g_hash_table_lookup (self->successors, sk_node_get_id (prior));
          if (list == NULL)
            {
              list = g_ptr_array_new ();
              g_hash_table_insert (self->successors, (gpointer) sk_node_get_id (prior), list);
            }

          /* A node that lists a prior twice still has one edge from it. */
          if (list->len == 0 || g_ptr_array_index (list, list->len - 1) != node)
            g_ptr_array_add (list, node);
        }
    }

  return self->successors;
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

/**
 * sk_project_get_previous_script:
 * @script: a node's script
 *
 * A script that is replaced, by a repair or by "Clear and Regenerate", is
 * kept in `.skele/previous/` in the node's folder, under the same name.
 *
 * Returns: (transfer full): where @script is kept
 */
GFile *
sk_project_get_previous_script (GFile *script)
{
  g_autoptr(GFile) folder = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *relative = NULL;

  g_return_val_if_fail (G_IS_FILE (script), NULL);

  folder = g_file_get_parent (script);
  basename = g_file_get_basename (script);
  relative = g_build_filename (".skele", "previous", basename, NULL);

  return g_file_resolve_relative_path (folder, relative);
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

/* Parsing: json-glib keeps the last of two members with the same name. A
 * workflow with two nodes under one identifier would silently lose one, so
 * duplicates are noticed while parsing, when the object's size stops growing.
 * The object replaced by a duplicate is freed, and a later object may get its
 * address, so counts are dropped when an object ends and duplicates hold a
 * reference to their object.
 */
typedef struct
{
  GHashTable *counts;
  GPtrArray  *duplicates;
} ParseState;

typedef struct
{
  JsonObject *object;
  char       *member;
} Duplicate;

static void
duplicate_free (gpointer data)
{
  Duplicate *duplicate = data;

  g_clear_pointer (&duplicate->object, json_object_unref);
  g_free (duplicate->member);
  g_free (duplicate);
}

static void
object_member_cb (JsonParser  *parser,
                  JsonObject  *object,
                  const char  *member_name,
                  ParseState  *state)
{
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (state->counts, object)) + 1;
  guint size = json_object_get_size (object);

  if (size < count)
    {
      Duplicate *duplicate = g_new0 (Duplicate, 1);

      duplicate->object = json_object_ref (object);
      duplicate->member = g_strdup (member_name);
      g_ptr_array_add (state->duplicates, duplicate);
      count = size;
    }

  g_hash_table_insert (state->counts, object, GUINT_TO_POINTER (count));
}

static void
object_end_cb (JsonParser *parser,
               JsonObject *object,
               ParseState *state)
{
  g_hash_table_remove (state->counts, object);
}

static gboolean
looks_like_node (JsonNode *node)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;

  object = json_node_get_object (node);
  return json_object_has_member (object, "name") ||
         json_object_has_member (object, "priors") ||
         json_object_has_member (object, "input");
}

static char *
describe_parse_error (const GError *error)
{
  const char *message = error->message;
  const char *rest;
  guint64 line, column;
  char *end;

  /* json-glib writes "<data>:LINE:COLUMN: Parse error: TEXT". */
  rest = strchr (message, ':');
  if (rest == NULL)
    return g_strdup (message);

  line = g_ascii_strtoull (rest + 1, &end, 10);
  if (end == rest + 1 || *end != ':')
    return g_strdup (message);

  rest = end;
  column = g_ascii_strtoull (rest + 1, &end, 10);
  if (end == rest + 1 || *end != ':')
    return g_strdup (message);

  rest = end + 1;
  while (*rest == ' ')
    rest++;
  if (g_str_has_prefix (rest, "Parse error: "))
    rest += strlen ("Parse error: ");

  return g_strdup_printf (_("line %u, column %u: %s"), (guint) line, (guint) column, rest);
}

static const char *
read_text_member (JsonObject *object,
                  const char *member,
                  const char *old_member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL && old_member != NULL)
    node = json_object_get_member (object, old_member);

  if (node != NULL &&
      JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);

  return "";
}

static void
apply_root (SkProject   *self,
            JsonObject  *root,
            ParseState  *state)
{
  g_autoptr(GList) members = NULL;
  JsonNode *nodes_node;
  JsonObject *nodes_object = NULL;
  JsonNode *skele_node;

  sk_project_set_name (self, read_text_member (root, "process_name", "project name"));
  sk_project_set_description (self, read_text_member (root, "process_description",
                              "project description"));

  nodes_node = json_object_get_member (root, "nodes");
  if (nodes_node != NULL && JSON_NODE_HOLDS_OBJECT (nodes_node))
    nodes_object = json_node_get_object (nodes_node);
  else if (nodes_node != NULL)
    add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                 _("“nodes” must be an object that maps identifiers to nodes"));

  members = json_object_get_members (root);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;
      JsonNode *value = json_object_get_member (root, member);

      if (g_strv_contains (known_members, member))
        continue;

      /* The paper's first format put the nodes beside the process's name. */
      if (nodes_node == NULL && looks_like_node (value))
        continue;

      json_object_set_member (self->extra, member, json_node_copy (value));
    }

  skele_node = json_object_get_member (root, "skele");
  if (skele_node != NULL && JSON_NODE_HOLDS_OBJECT (skele_node))
    {
      JsonObject *skele = json_node_get_object (skele_node);
      g_autoptr(GList) skele_members = json_object_get_members (skele);

      for (const GList *l = skele_members; l != NULL; l = l->next)
        {
          const char *member = l->data;

          if (g_str_equal (member, "python"))
            {
              const char *python = read_text_member (skele, "python", NULL);

              g_free (self->python);
              self->python = python[0] != '\0' ? g_strdup (python) : NULL;
              if (self->python != NULL)
                continue;
            }

          json_object_set_member (self->skele_extra, member,
                                  json_node_copy (json_object_get_member (skele, member)));
        }
    }
  else if (skele_node != NULL)
    {
      add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                   _("“skele” must be an object"));
      json_object_set_member (self->extra, "skele", json_node_copy (skele_node));
    }

  {
    JsonObject *source = nodes_object != NULL ? nodes_object : root;
    g_autoptr(GList) ids = json_object_get_members (source);

    for (const GList *l = ids; l != NULL; l = l->next)
      {
        const char *id = l->data;
        JsonNode *value = json_object_get_member (source, id);
        g_autoptr(GPtrArray) messages = NULL;
        g_autoptr(SkNode) node = NULL;

        if (nodes_object == NULL && (g_strv_contains (known_members, id) || !looks_like_node (value)))
          continue;

        if (!JSON_NODE_HOLDS_OBJECT (value))
          {
            add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, id,
                         _("Node %s is not an object, so it cannot be read."), id);
            json_object_set_member (self->invalid_nodes, id, json_node_copy (value));
            continue;
          }

        messages = g_ptr_array_new_with_free_func (g_free);
        node = g_object_new (SK_TYPE_NODE, "id", id, NULL);
        _sk_node_load_json (node, json_node_get_object (value), messages);

        for (guint i = 0; i < messages->len; i++)
          {
            g_autofree char *who = describe_node (node);

            add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, id,
                         /* Translators: the first %s names a node, the second is the problem. */
                         _("In %s, %s."), who, (char *) g_ptr_array_index (messages, i));
          }

        attach_node (self, self->nodes->len, node);
      }

    for (guint i = 0; state != NULL && i < state->duplicates->len; i++)
      {
        Duplicate *duplicate = g_ptr_array_index (state->duplicates, i);

        if (duplicate->object == source && !(nodes_object == NULL &&
                                             g_strv_contains (known_members, duplicate->member)))
          {
            add_problem (self->load_problems, SK_PROBLEM_DUPLICATE_ID, FALSE, duplicate->member,
                         _("Two nodes have the identifier “%s”; only the last one was read. "
                           "Give each node its own identifier."),
                         duplicate->member);
          }
        else if (duplicate->object == root)
          {
            add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE, NULL,
                         _("“%s” appears twice; only the last one was read."),
                         duplicate->member);
          }
        else
          {
            for (guint j = 0; j < self->nodes->len; j++)
              {
                SkNode *node = g_ptr_array_index (self->nodes, j);
                JsonNode *value = json_object_get_member (source, sk_node_get_id (node));

                if (value != NULL && json_node_get_object (value) == duplicate->object)
                  {
                    g_autofree char *who = describe_node (node);

                    add_problem (self->load_problems, SK_PROBLEM_STRUCTURE, FALSE,
                                 sk_node_get_id (node),
                                 _("In %s, “%s” appears twice; only the last one was read."),
                                 who, duplicate->member);
                    break;
                  }
              }
          }
      }
  }
}

/**
 * sk_project_load_from_data:
 * @data: the contents of a process.json file
 * @length: the length of @data, or -1 if it is nul-terminated
 * @folder: (nullable): the workflow's folder
 * @error: return location for a #GError
 *
 * Reads a workflow leniently. Only text that is not a JSON object is an
 * error; everything else that is wrong is reported by sk_project_validate().
 *
 * Returns: (transfer full): the workflow, or %NULL with @error set
 */
SkProject *
sk_project_load_from_data (const char  *data,
                           gssize       length,
                           GFile       *folder,
                           GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(SkProject) self = NULL;
  g_autoptr(GError) local_error = NULL;
  ParseState state;
  JsonNode *root;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (folder == NULL || G_IS_FILE (folder), NULL);

  state.counts = g_hash_table_new (NULL, NULL);
  state.duplicates = g_ptr_array_new_with_free_func (duplicate_free);

  parser = json_parser_new_immutable ();
  g_signal_connect (parser, "object-member", G_CALLBACK (object_member_cb), &state);
  g_signal_connect (parser, "object-end", G_CALLBACK (object_end_cb), &state);

  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_autofree char *where = describe_parse_error (local_error);

      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                   _("The workflow file is not valid JSON: %s."), where);
      g_hash_table_unref (state.counts);
      g_ptr_array_unref (state.duplicates);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_PARSE,
                   _("The workflow file must hold one JSON object with the process’s "
                     "name and its “nodes”."));
      g_hash_table_unref (state.counts);
      g_ptr_array_unref (state.duplicates);
      return NULL;
    }

  self = sk_project_new (folder);
  apply_root (self, json_node_get_object (root), &state);

  g_hash_table_unref (state.counts);
  g_ptr_array_unref (state.duplicates);

  self->modified = FALSE;
  return g_steal_pointer (&self);
}

/**
 * sk_project_load:
 * @file: a workflow folder, or its process.json file
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the workflow, or %NULL with @error set
 */
SkProject *
sk_project_load (GFile   *file,
                 GError **error)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFile) json_file = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    {
      folder = g_object_ref (file);
      json_file = g_file_get_child (file, SK_PROJECT_FILE_NAME);
    }
  else
    {
      folder = g_file_get_parent (file);
      json_file = g_object_ref (file);
    }

  if (!g_file_load_contents (json_file, NULL, &contents, &length, NULL, &local_error))
    {
      g_autofree char *path = g_file_get_path (json_file);

      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                     _("There is no workflow at “%s”: the file does not exist."), path);
      else
        g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_NOT_FOUND,
                     _("The workflow “%s” could not be read: %s"), path, local_error->message);
      return NULL;
    }

  return sk_project_load_from_data (contents, length, folder, error);
}

/* Writes the workflow's members in their canonical order; the "nodes"
 * member only when @with_nodes is set.
 */
static JsonObject *
project_to_json (SkProject *self,
                 gboolean   with_nodes)
{
  JsonObject *root;
  g_autoptr(GList) members = NULL;

  root = json_object_new ();
  json_object_set_string_member (root, "process_name", self->name);
  json_object_set_string_member (root, "process_description", self->description);

  if (with_nodes)
    {
      JsonObject *nodes = json_object_new ();

      for (guint i = 0; i < self->nodes->len; i++)
        {
          SkNode *node = g_ptr_array_index (self->nodes, i);

          json_object_set_object_member (nodes, sk_node_get_id (node), sk_node_to_json (node));
        }

      members = json_object_get_members (self->invalid_nodes);
      for (const GList *l = members; l != NULL; l = l->next)
        {
          if (!json_object_has_member (nodes, l->data))
            json_object_set_member (nodes, l->data,
                                    json_node_copy (json_object_get_member (self->invalid_nodes,
                                                                            l->data)));
        }
      json_object_set_object_member (root, "nodes", nodes);
    }

  g_clear_pointer (&members, g_list_free);
  members = json_object_get_members (self->extra);
  for (const GList *l = members; l != NULL; l = l->next)
    json_object_set_member (root, l->data,
                            json_node_copy (json_object_get_member (self->extra, l->data)));

  if (self->python != NULL || json_object_get_size (self->skele_extra) > 0)
    {
      JsonObject *skele = json_object_new ();

      if (self->python != NULL)
        json_object_set_string_member (skele, "python", self->python);

      g_clear_pointer (&members, g_list_free);
      members = json_object_get_members (self->skele_extra);
      for (const GList *l = members; l != NULL; l = l->next)
        json_object_set_member (skele, l->data,
                                json_node_copy (json_object_get_member (self->skele_extra,
                                                                        l->data)));

      json_object_set_object_member (root, "skele", skele);
    }

  return root;
}

/**
 * sk_project_to_json:
 * @self: a #SkProject
 *
 * Returns: (transfer full): the workflow in its canonical form
 */
JsonObject *
sk_project_to_json (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return project_to_json (self, TRUE);
}

/*
 * Returns what sk_project_to_json() writes besides "nodes": the process's
 * name and description, the "skele" settings and the members this program
 * does not know. It costs nothing per node.
 */
JsonObject *
_sk_project_header_to_json (SkProject *self)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  return project_to_json (self, FALSE);
}

/*
 * Applies @header, as _sk_project_header_to_json() returns it, and leaves
 * the nodes alone. Undo uses it to put back the process's settings.
 */
void
_sk_project_apply_header_json (SkProject  *self,
                               JsonObject *header)
{
  g_autoptr(GList) members = NULL;
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) skele_extra = NULL;
  g_autofree char *python = NULL;
  gboolean changed;

  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (header != NULL);

  extra = json_object_new ();
  skele_extra = json_object_new ();

  members = json_object_get_members (header);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *member = l->data;
      JsonNode *value = json_object_get_member (header, member);

      if (g_str_equal (member, "process_name") ||
          g_str_equal (member, "process_description") ||
          g_str_equal (member, "nodes"))
        continue;

      if (g_str_equal (member, "skele") && JSON_NODE_HOLDS_OBJECT (value))
        {
          JsonObject *skele = json_node_get_object (value);
          g_autoptr(GList) skele_members = json_object_get_members (skele);
          const char *python_text = read_text_member (skele, "python", NULL);

          for (const GList *s = skele_members; s != NULL; s = s->next)
            {
              if (g_str_equal (s->data, "python") && python_text[0] != '\0')
                {
                  python = g_strdup (python_text);
                  continue;
                }

              json_object_set_member (skele_extra, s->data,
                                      json_node_copy (json_object_get_member (skele, s->data)));
            }
          continue;
        }

      json_object_set_member (extra, member, json_node_copy (value));
    }

  changed = (g_strcmp0 (python, self->python) != 0 ||
             !json_object_equal (extra, self->extra) ||
             !json_object_equal (skele_extra, self->skele_extra));

  g_free (self->python);
  self->python = g_steal_pointer (&python);
  g_clear_pointer (&self->extra, json_object_unref);
  self->extra = g_steal_pointer (&extra);
  g_clear_pointer (&self->skele_extra, json_object_unref);
  self->skele_extra = g_steal_pointer (&skele_extra);

  sk_project_set_name (self, read_text_member (header, "process_name", NULL));
  sk_project_set_description (self, read_text_member (header, "process_description", NULL));

  if (changed)
    set_modified (self);
}

/**
 * sk_project_to_data:
 * @self: a #SkProject
 * @length: (out) (optional): the length of the text
 *
 * Returns: (transfer full): the workflow as the text of a process.json file
 */
char *
sk_project_to_data (SkProject *self,
                    gsize     *length)
{
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(JsonNode) root = NULL;
  GString *text;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  root = json_node_init_object (json_node_alloc (), sk_project_to_json (self));
  json_object_unref (json_node_get_object (root));

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);

  text = g_string_new (NULL);
  json_generator_to_gstring (generator, text);
  g_string_append_c (text, '\n');

  if (length != NULL)
    *length = text->len;

  return g_string_free (text, FALSE);
}

/**
 * sk_project_save_to_folder:
 * @self: a #SkProject
 * @folder: the folder to write process.json into
 * @error: return location for a #GError
 *
 * Writes the workflow atomically: the new text goes to a temporary file that
 * is flushed to disk and then renamed over process.json, so an interrupted
 * save leaves the previous file as it was.
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_project_save_to_folder (SkProject  *self,
                           GFile      *folder,
                           GError    **error)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *folder_path = NULL;
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize length;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (folder), FALSE);

  folder_path = g_file_get_path (folder);
  if (g_mkdir_with_parents (folder_path, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("The folder “%s” could not be created: %s"),
                   folder_path, g_strerror (saved_errno));
      return FALSE;
    }

  file = g_file_get_child (folder, SK_PROJECT_FILE_NAME);
  path = g_file_get_path (file);
  data = sk_project_to_data (self, &length);

  if (!g_file_set_contents_full (path, data, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0644, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("The workflow could not be saved, and the previous file was kept: %s"),
                   local_error->message);
      return FALSE;
    }

  if (self->folder == NULL)
    {
      self->folder = g_object_ref (folder);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_FOLDER]);
    }

  sk_project_set_modified (self, FALSE);
  return TRUE;
}

/**
 * sk_project_save:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Saves the workflow into its folder; see sk_project_save_to_folder().
 *
 * Returns: %TRUE if the workflow was saved
 */
gboolean
sk_project_save (SkProject  *self,
                 GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  if (self->folder == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   _("The workflow has no folder yet; choose one with “Save As”."));
      return FALSE;
    }

  return sk_project_save_to_folder (self, self->folder, error);
}

/**
 * sk_project_update_from_json:
 * @self: a #SkProject
 * @object: the whole workflow as JSON, as the process JSON editor shows it
 * @error: return location for a #GError
 *
 * Applies an edited workflow: nodes keep their identity where their
 * identifier is unchanged. Nothing changes when @object has errors.
 *
 * Returns: %TRUE if @object was applied
 */
gboolean
sk_project_update_from_json (SkProject   *self,
                             JsonObject  *object,
                             GError     **error)
{
  g_autoptr(SkProject) scratch = NULL;
  g_autoptr(GPtrArray) problems = NULL;
  g_autoptr(GPtrArray) removed = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (object != NULL, FALSE);

  scratch = sk_project_new (self->folder);
  apply_root (scratch, object, NULL);

  problems = sk_project_validate (scratch);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                       _("The workflow’s JSON was not applied: %s"), problem->message);
          return FALSE;
        }
    }

  sk_project_set_name (self, scratch->name);
  sk_project_set_description (self, scratch->description);
  g_free (self->python);
  self->python = g_strdup (scratch->python);
  g_clear_pointer (&self->extra, json_object_unref);
  self->extra = json_object_ref (scratch->extra);
  g_clear_pointer (&self->skele_extra, json_object_unref);
  self->skele_extra = json_object_ref (scratch->skele_extra);

  /* What the file that was loaded could not hold is not part of the edit. */
  g_clear_pointer (&self->invalid_nodes, json_object_unref);
  self->invalid_nodes = json_object_ref (scratch->invalid_nodes);
  g_ptr_array_set_size (self->load_problems, 0);

  removed = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);

      if (sk_project_get_node (scratch, sk_node_get_id (node)) == NULL)
        g_ptr_array_add (removed, g_object_ref (node));
    }

  for (guint i = 0; i < removed->len; i++)
    sk_project_remove_node (self, g_ptr_array_index (removed, i));

  for (guint i = 0; i < scratch->nodes->len; i++)
    {
      SkNode *edited = g_ptr_array_index (scratch->nodes, i);
      SkNode *node = sk_project_get_node (self, sk_node_get_id (edited));
      g_autoptr(JsonObject) json = sk_node_to_json (edited);

      if (node != NULL)
        _sk_node_load_json (node, json, NULL);
      else
        sk_project_add_node (self, edited, NULL);
    }

  set_modified (self);
  return TRUE;
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
  g_autoptr(GFile) folder = NULL;
  g_autofree char *basename = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  folder = sk_project_get_node_folder (self, node);
  if (folder == NULL)
    return NULL;

  basename = g_strconcat (sk_node_get_key (node), ".py", NULL);
  return g_file_get_child (folder, basename);
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
  set_modified (self);
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
  set_modified (self);
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

  attach_node (self, position, node);
  invalidate_graph (self);

  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_N_ITEMS]);
  g_signal_emit (self, signals [NODE_ADDED], 0, node);
  set_modified (self);

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
  set_modified (self);
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

static gboolean
reaches (SkProject *self,
         SkNode    *from,
         SkNode    *to)
{
  g_autoptr(GPtrArray) descendants = sk_project_get_descendants (self, from);

  return g_ptr_array_find (descendants, to, NULL);
}

/**
 * sk_project_can_connect:
 * @self: a #SkProject
 * @prior: the node whose results are needed
 * @node: the node that needs them
 * @error: return location for a #GError
 *
 * Returns: %TRUE if an edge from @prior to @node can be added: it is new and
 *   makes no cycle
 */
gboolean
sk_project_can_connect (SkProject  *self,
                        SkNode     *prior,
                        SkNode     *node,
                        GError    **error)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (SK_IS_NODE (prior), FALSE);
  g_return_val_if_fail (SK_IS_NODE (node), FALSE);

  if (prior == node)
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("A step cannot need its own results."));
      return FALSE;
    }

  if (sk_node_has_prior (node, sk_node_get_id (prior)))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                   _("“%s” already needs “%s”."),
                   sk_node_get_name (node), sk_node_get_name (prior));
      return FALSE;
    }

  if (reaches (self, node, prior))
    {
      g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE,
                   _("“%s” cannot need “%s”: “%s” already needs the results of “%s”, "
                     "and steps cannot wait for each other in a circle."),
                   sk_node_get_name (node), sk_node_get_name (prior),
                   sk_node_get_name (prior), sk_node_get_name (node));
      return FALSE;
    }

  return TRUE;
}

static int
compare_positions (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  guint position_a = GPOINTER_TO_UINT (a);
  guint position_b = GPOINTER_TO_UINT (b);

  return position_a < position_b ? -1 : position_a > position_b;
}

/* Kahn's algorithm that always takes the ready node that comes first in the
 * file, so that the order is stable and a file already in dependency order
 * keeps its order. The ready nodes are kept sorted by file position in a
 * balanced tree, which keeps wide workflows at O(n log n). Nodes left over
 * are on a cycle or downstream of one.
 */
static GPtrArray *
topological_sort (SkProject  *self,
                  GPtrArray **left_over)
{
  g_autoptr(GHashTable) file_position = g_hash_table_new (NULL, NULL);
  g_autoptr(GSequence) ready = g_sequence_new (NULL);
  g_autofree guint *in_degree = g_new0 (guint, self->nodes->len);
  GHashTable *successors = get_successors (self);
  GPtrArray *order = g_ptr_array_new_full (self->nodes->len, g_object_unref);

  for (guint i = 0; i < self->nodes->len; i++)
    g_hash_table_insert (file_position, g_ptr_array_index (self->nodes, i), GUINT_TO_POINTER (i));

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);

      for (guint j = 0; priors[j] != NULL; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);

          /* Dangling priors are reported by validation, not ordered. A prior
           * listed twice counts once, as the successor lists hold each edge once.
           */
          if (prior != NULL && (prior == node || !g_strv_contains (priors + j + 1, priors[j])))
            in_degree[i]++;
        }

      if (in_degree[i] == 0)
        g_sequence_append (ready, GUINT_TO_POINTER (i));
    }

  while (!g_sequence_is_empty (ready))
    {
      GSequenceIter *first = g_sequence_get_begin_iter (ready);
      SkNode *node = g_ptr_array_index (self->nodes, GPOINTER_TO_UINT (g_sequence_get (first)));
      GPtrArray *list = g_hash_table_lookup (successors, sk_node_get_id (node));

      g_sequence_remove (first);
      g_ptr_array_add (order, g_object_ref (node));

      for (guint i = 0; list != NULL && i < list->len; i++)
        {
          guint position = GPOINTER_TO_UINT (g_hash_table_lookup (file_position,
                                                                 g_ptr_array_index (list, i)));

          if (--in_degree[position] == 0)
            g_sequence_insert_sorted (ready, GUINT_TO_POINTER (position), compare_positions, NULL);
        }
    }

  if (left_over != NULL)
    {
      *left_over = g_ptr_array_new ();

      for (guint i = 0; i < self->nodes->len; i++)
        {
          if (in_degree[i] > 0)
            g_ptr_array_add (*left_over, g_ptr_array_index (self->nodes, i));
        }
    }

  return order;
}

/* Returns the first prior of @node, other than @node itself, that is in @set. */
static SkNode *
first_prior_in (SkProject  *self,
                SkNode     *node,
                GHashTable *set)
{
  const char * const *priors = sk_node_get_priors (node);

  for (guint i = 0; priors[i] != NULL; i++)
    {
      SkNode *prior = g_hash_table_lookup (self->by_id, priors[i]);

      if (prior != NULL && prior != node && g_hash_table_contains (set, prior))
        return prior;
    }

  return NULL;
}

/* Finds the cycles among the nodes that could not be ordered. Self-loops are
 * reported on their own, so nodes that could not be ordered only because of
 * one are set aside first. Every node left then has a prior that is left too,
 * so walking priors from any of them must come back to a node already seen.
 */
static void
describe_cycles (SkProject *self,
                 GPtrArray *left_over,
                 GPtrArray *problems)
{
  g_autoptr(GHashTable) cyclic = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) pending = g_hash_table_new (NULL, NULL);
  gboolean pruned = TRUE;

  for (guint i = 0; i < left_over->len; i++)
    g_hash_table_add (cyclic, g_ptr_array_index (left_over, i));

  while (pruned)
    {
      pruned = FALSE;

      for (guint i = 0; i < left_over->len; i++)
        {
          SkNode *node = g_ptr_array_index (left_over, i);

          if (g_hash_table_contains (cyclic, node) &&
              first_prior_in (self, node, cyclic) == NULL)
            {
              g_hash_table_remove (cyclic, node);
              pruned = TRUE;
            }
        }
    }

  for (guint i = 0; i < left_over->len; i++)
    {
      SkNode *node = g_ptr_array_index (left_over, i);

      if (g_hash_table_contains (cyclic, node))
        g_hash_table_add (pending, node);
    }

  for (guint i = 0; i < left_over->len; i++)
    {
      SkNode *start = g_ptr_array_index (left_over, i);
      g_autoptr(GPtrArray) path = NULL;
      g_autoptr(GHashTable) position = NULL;
      g_autoptr(GString) text = NULL;
      g_autoptr(GPtrArray) covered = NULL;
      SkNode *node;
      guint first;

      if (!g_hash_table_contains (pending, start))
        continue;

      path = g_ptr_array_new ();
      position = g_hash_table_new (NULL, NULL);
      node = start;

      while (!g_hash_table_contains (position, node))
        {
          SkNode *next;

          g_hash_table_insert (position, node, GUINT_TO_POINTER (path->len));
          g_ptr_array_add (path, node);

          next = first_prior_in (self, node, cyclic);
          g_assert (next != NULL);
          node = next;
        }

      first = GPOINTER_TO_UINT (g_hash_table_lookup (position, node));

      /* The walk followed "needs"; the message follows the flow of results. */
      text = g_string_new (NULL);
      for (guint j = path->len; j > first; j--)
        {
          g_autofree char *who = describe_node (g_ptr_array_index (path, j - 1));

          g_string_append (text, who);
          g_string_append (text, " → ");
        }
      {
        g_autofree char *who = describe_node (g_ptr_array_index (path, path->len - 1));

        g_string_append (text, who);
      }

      add_problem (problems, SK_PROBLEM_CYCLE, FALSE, sk_node_get_id (node),
                   _("These steps need each other’s results in a circle, so none of them "
                     "can run: %s. Remove one of these connections."), text->str);

      /* Everything downstream of this cycle is explained by it. */
      covered = sk_project_get_descendants (self, node);
      g_ptr_array_add (covered, g_object_ref (node));
      for (guint j = 0; j < covered->len; j++)
        g_hash_table_remove (pending, g_ptr_array_index (covered, j));
    }
}

/**
 * sk_project_validate:
 * @self: a #SkProject
 *
 * Checks the workflow's structure: values of the wrong type, duplicate
 * identifiers, names that give no key or a key another node has, priors that
 * do not exist, cycles, and (as warnings) nodes without a script.
 *
 * Returns: (transfer container) (element-type SkProblem): one problem per
 *   entry, each naming its node; empty when the workflow is sound
 */
GPtrArray *
sk_project_validate (SkProject *self)
{
  g_autoptr(GHashTable) keys = NULL;
  g_autoptr(GPtrArray) left_over = NULL;
  g_autoptr(GPtrArray) order = NULL;
  GPtrArray *problems;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
  for (guint i = 0; i < self->load_problems->len; i++)
    g_ptr_array_add (problems, sk_problem_copy (g_ptr_array_index (self->load_problems, i)));

  keys = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char *key = sk_node_get_key (node);
      const char * const *priors = sk_node_get_priors (node);
      g_autofree char *who = describe_node (node);
      SkNode *other;

      if (key[0] == '\0')
        {
          if (sk_node_get_name (node)[0] == '\0')
            add_problem (problems, SK_PROBLEM_EMPTY_KEY, FALSE, sk_node_get_id (node),
                         _("Node %s has no name. Give it a name with letters or digits."),
                         sk_node_get_id (node));
          else
            add_problem (problems, SK_PROBLEM_EMPTY_KEY, FALSE, sk_node_get_id (node),
                         _("The name of %s has no letters or digits, so it cannot name the "
                           "step’s folder. Rename it."), who);
        }
      else if ((other = g_hash_table_lookup (keys, key)) != NULL)
        {
          g_autofree char *other_who = describe_node (other);

          add_problem (problems, SK_PROBLEM_DUPLICATE_KEY, FALSE, sk_node_get_id (node),
                       _("%s and %s would share the folder “%s”. Rename one of them."),
                       other_who, who, key);
        }
      else
        {
          g_hash_table_insert (keys, (gpointer) key, node);
        }

      for (guint j = 0; priors[j] != NULL; j++)
        {
          if (g_str_equal (priors[j], sk_node_get_id (node)))
            add_problem (problems, SK_PROBLEM_CYCLE, FALSE, sk_node_get_id (node),
                         _("%s lists itself among the steps it needs. Remove that "
                           "connection."), who);
          else if (!g_hash_table_contains (self->by_id, priors[j]))
            add_problem (problems, SK_PROBLEM_DANGLING_PRIOR, FALSE, sk_node_get_id (node),
                         _("%s needs node “%s”, which does not exist. Remove it from its "
                           "priors or add that node."), who, priors[j]);
        }

      if (self->folder != NULL && key[0] != '\0')
        {
          g_autoptr(GFile) script = sk_project_get_node_script (self, node);

          if (!g_file_query_exists (script, NULL))
            add_problem (problems, SK_PROBLEM_MISSING_SCRIPT, TRUE, sk_node_get_id (node),
                         _("%s has no script yet (%s/%s.py); the coding agent writes it, "
                           "or you can write it yourself."), who, key, key);
        }
    }

  order = topological_sort (self, &left_over);
  if (left_over->len > 0)
    describe_cycles (self, left_over, problems);

  return problems;
}

/**
 * sk_project_check:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Returns: %TRUE if sk_project_validate() finds no errors (warnings are
 *   allowed); otherwise %FALSE with the first error in @error
 */
gboolean
sk_project_check (SkProject  *self,
                  GError    **error)
{
  g_autoptr(GPtrArray) problems = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), FALSE);

  problems = sk_project_validate (self);
  for (guint i = 0; i < problems->len; i++)
    {
      SkProblem *problem = g_ptr_array_index (problems, i);

      if (!problem->is_warning)
        {
          g_set_error_literal (error, SK_PROJECT_ERROR,
                               problem->kind == SK_PROBLEM_CYCLE ? SK_PROJECT_ERROR_CYCLE
                                                                 : SK_PROJECT_ERROR_INVALID,
                               problem->message);
          return FALSE;
        }
    }

  return TRUE;
}

/**
 * sk_project_topological_order:
 * @self: a #SkProject
 * @error: return location for a #GError
 *
 * Returns: (transfer container) (element-type SkNode): every node after its
 *   priors, ties in file order; %NULL with @error set when there is a cycle
 */
GPtrArray *
sk_project_topological_order (SkProject  *self,
                              GError    **error)
{
  g_autoptr(GPtrArray) left_over = NULL;
  g_autoptr(GPtrArray) order = NULL;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);

  order = topological_sort (self, &left_over);
  if (left_over->len > 0)
    {
      g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_problem_free);
      const char *message;

      describe_cycles (self, left_over, problems);
      if (problems->len > 0)
        message = ((SkProblem *) g_ptr_array_index (problems, 0))->message;
      else
        message = _("A step lists itself among the steps it needs.");

      g_set_error_literal (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_CYCLE, message);
      return NULL;
    }

  return g_steal_pointer (&order);
}

/**
 * sk_project_get_prior_nodes:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): the existing nodes
 *   that @node needs, in the order of its priors
 */
GPtrArray *
sk_project_get_prior_nodes (SkProject *self,
                            SkNode    *node)
{
  const char * const *priors;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);
  priors = sk_node_get_priors (node);

  for (guint i = 0; priors[i] != NULL; i++)
    {
      SkNode *prior = g_hash_table_lookup (self->by_id, priors[i]);

      if (prior != NULL && prior != node && !g_ptr_array_find (result, prior, NULL))
        g_ptr_array_add (result, g_object_ref (prior));
    }

  return result;
}

/**
 * sk_project_get_successors:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): the nodes that need
 *   @node's results, in file order
 */
GPtrArray *
sk_project_get_successors (SkProject *self,
                           SkNode    *node)
{
  GPtrArray *list;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);
  list = g_hash_table_lookup (get_successors (self), sk_node_get_id (node));

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      SkNode *next = g_ptr_array_index (list, i);

      if (!g_ptr_array_find (result, next, NULL))
        g_ptr_array_add (result, g_object_ref (next));
    }

  return result;
}

static GPtrArray *
walk (SkProject *self,
      SkNode    *start,
      gboolean   downstream)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTable *successors = get_successors (self);
  GQueue queue = G_QUEUE_INIT;

  g_hash_table_add (seen, start);
  g_queue_push_tail (&queue, start);

  while (!g_queue_is_empty (&queue))
    {
      SkNode *node = g_queue_pop_head (&queue);

      if (downstream)
        {
          GPtrArray *list = g_hash_table_lookup (successors, sk_node_get_id (node));

          for (guint i = 0; list != NULL && i < list->len; i++)
            {
              SkNode *next = g_ptr_array_index (list, i);

              if (g_hash_table_add (seen, next))
                {
                  g_ptr_array_add (result, g_object_ref (next));
                  g_queue_push_tail (&queue, next);
                }
            }
        }
      else
        {
          const char * const *priors = sk_node_get_priors (node);

          for (guint i = 0; priors[i] != NULL; i++)
            {
              SkNode *next = g_hash_table_lookup (self->by_id, priors[i]);

              if (next != NULL && g_hash_table_add (seen, next))
                {
                  g_ptr_array_add (result, g_object_ref (next));
                  g_queue_push_tail (&queue, next);
                }
            }
        }
    }

  return result;
}

/**
 * sk_project_get_descendants:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): every node that
 *   depends on @node directly or indirectly, nearest first
 */
GPtrArray *
sk_project_get_descendants (SkProject *self,
                            SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  return walk (self, node, TRUE);
}

/**
 * sk_project_get_ancestors:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * Returns: (transfer container) (element-type SkNode): every node that @node
 *   depends on directly or indirectly, nearest first
 */
GPtrArray *
sk_project_get_ancestors (SkProject *self,
                          SkNode    *node)
{
  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  return walk (self, node, FALSE);
}

/**
 * sk_project_get_markov_blanket:
 * @self: a #SkProject
 * @node: a node of @self
 *
 * The coding agent sees a node's neighbourhood only: the nodes whose results
 * it reads and the nodes that read its results.
 *
 * Returns: (transfer container) (element-type SkNode): @node's priors, then
 *   its successors
 */
GPtrArray *
sk_project_get_markov_blanket (SkProject *self,
                               SkNode    *node)
{
  g_autoptr(GPtrArray) successors = NULL;
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (SK_IS_NODE (node), NULL);

  result = sk_project_get_prior_nodes (self, node);
  successors = sk_project_get_successors (self, node);

  for (guint i = 0; i < successors->len; i++)
    {
      SkNode *next = g_ptr_array_index (successors, i);

      if (!g_ptr_array_find (result, next, NULL))
        g_ptr_array_add (result, g_object_ref (next));
    }

  return result;
}

/**
 * sk_project_get_ready_nodes:
 * @self: a #SkProject
 * @finished: (element-type SkNode SkNode): the set of nodes that have finished
 *
 * Returns: (transfer container) (element-type SkNode): the nodes, in file
 *   order, that have not finished and whose priors all have
 */
GPtrArray *
sk_project_get_ready_nodes (SkProject  *self,
                            GHashTable *finished)
{
  GPtrArray *result;

  g_return_val_if_fail (SK_IS_PROJECT (self), NULL);
  g_return_val_if_fail (finished != NULL, NULL);

  result = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < self->nodes->len; i++)
    {
      SkNode *node = g_ptr_array_index (self->nodes, i);
      const char * const *priors = sk_node_get_priors (node);
      gboolean ready = TRUE;

      if (g_hash_table_contains (finished, node))
        continue;

      for (guint j = 0; priors[j] != NULL && ready; j++)
        {
          SkNode *prior = g_hash_table_lookup (self->by_id, priors[j]);

          if (prior != NULL && !g_hash_table_contains (finished, prior))
            ready = FALSE;
        }

      if (ready)
        g_ptr_array_add (result, g_object_ref (node));
    }

  return result;
}

/**
 * sk_project_mark_stale:
 * @self: a #SkProject
 * @node: a node of @self that was edited
 *
 * Marks @node and everything downstream of it as stale when they show the
 * result of an earlier run, which no longer reflects their inputs.
 */
void
sk_project_mark_stale (SkProject *self,
                       SkNode    *node)
{
  g_autoptr(GPtrArray) descendants = NULL;

  g_return_if_fail (SK_IS_PROJECT (self));
  g_return_if_fail (SK_IS_NODE (node));

  descendants = sk_project_get_descendants (self, node);
  g_ptr_array_insert (descendants, 0, g_object_ref (node));

  for (guint i = 0; i < descendants->len; i++)
    {
      SkNode *each = g_ptr_array_index (descendants, i);
      SkNodeState state = sk_node_get_state (each);

      if (state == SK_NODE_STATE_SUCCEEDED ||
          state == SK_NODE_STATE_FAILED ||
          state == SK_NODE_STATE_SKIPPED ||
          state == SK_NODE_STATE_CANCELLED ||
          state == SK_NODE_STATE_UP_TO_DATE)
        sk_node_set_state (each, SK_NODE_STATE_STALE);
    }
}

/**
 * sk_project_select_nodes:
 * @project: a workflow
 * @only: (nullable) (array zero-terminated=1): nodes to run, by key, identifier
 *   or name; %NULL for the nodes marked to run
 * @from: (nullable): run this node and everything downstream of it
 * @to: (nullable): run this node and everything it needs
 * @error: return location for a #GError
 *
 * With both @from and @to, the nodes between them are selected.
 *
 * Returns: (transfer container) (element-type SkNode): the selected nodes in
 *   file order, or %NULL with @error set when a node does not exist
 */
GPtrArray *
sk_project_select_nodes (SkProject           *project,
                         const char * const  *only,
                         const char          *from,
                         const char          *to,
                         GError             **error)
{
  g_autoptr(GHashTable) chosen = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) downstream = NULL;
  g_autoptr(GHashTable) upstream = NULL;
  GPtrArray *result;
  guint n_nodes;

  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  n_nodes = g_list_model_get_n_items (G_LIST_MODEL (project));

  if (only != NULL && only[0] != NULL)
    {
      for (guint i = 0; only[i] != NULL; i++)
        {
          SkNode *node = sk_project_lookup_node (project, only[i]);

          if (node == NULL)
            {
              g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                           _("The workflow has no step “%s”."), only[i]);
              return NULL;
            }

          g_hash_table_add (chosen, node);
        }
    }

  for (guint pass = 0; pass < 2; pass++)
    {
      const char *name = pass == 0 ? from : to;
      g_autoptr(GPtrArray) related = NULL;
      GHashTable *set;
      SkNode *node;

      if (name == NULL)
        continue;

      if ((node = sk_project_lookup_node (project, name)) == NULL)
        {
          g_set_error (error, SK_PROJECT_ERROR, SK_PROJECT_ERROR_INVALID,
                       _("The workflow has no step “%s”."), name);
          return NULL;
        }

      related = pass == 0 ? sk_project_get_descendants (project, node)
                          : sk_project_get_ancestors (project, node);
      set = g_hash_table_new (NULL, NULL);
      g_hash_table_add (set, node);
      for (guint i = 0; i < related->len; i++)
        g_hash_table_add (set, g_ptr_array_index (related, i));

      if (pass == 0)
        downstream = set;
      else
        upstream = set;
    }

  result = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n_nodes; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (project), i);
      gboolean include;

      if (g_hash_table_size (chosen) > 0)
        include = g_hash_table_contains (chosen, node);
      else if (downstream != NULL || upstream != NULL)
        include = TRUE;
      else
        include = sk_node_get_run (node);

      if (downstream != NULL && !g_hash_table_contains (downstream, node))
        include = FALSE;
      if (upstream != NULL && !g_hash_table_contains (upstream, node))
        include = FALSE;

      if (include)
        g_ptr_array_add (result, g_object_ref (node));
    }

  return result;
}
