/* sk-history.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-history"

#include "config.h"

#include <string.h>

#include "sk-history-private.h"
#include "sk-json.h"
#include "sk-node-private.h"
#include "sk-project-private.h"

/* The history never asks its callers what they changed. It keeps the
 * undoable state of every node as JSON, learns from signals which nodes were
 * touched, and when a step closes it compares only those with what it kept.
 * So a change made anywhere (canvas, cells, JSON editor) can be undone.
 *
 * What it keeps of each node, and of each change in its steps, is JSON
 * text rather than a tree: a tree of JsonObjects costs several times the
 * memory, and a workflow of many steps keeps one state for every step.
 * The text is parsed again only to describe, merge or apply a change.
 */

typedef enum
{
  OP_ADD,
  OP_REMOVE,
} OpKind;

/* A file a step wrote besides the workflow, such as a script it edited:
 * its contents before and after, %NULL where the file did not exist. */
typedef struct
{
  GFile  *file;
  GBytes *before;
  GBytes *after;
} FileChange;

/* Nodes added and removed, in order, so that replaying them backwards puts
 * every node back at its place in the list.
 */
typedef struct
{
  OpKind      kind;
  guint       position;
  char       *id;
  /* The node's whole JSON as text, to create it again. */
  char       *json;
} Op;

/* A Change as a step keeps it: each state as JSON text, a #GRefString
 * shared with the snapshot while it is the node's current state; %NULL
 * when the node did not exist. */
typedef struct
{
  char       *id;
  GRefString *before;
  GRefString *after;
} StoredChange;

typedef struct
{
  char       *label;
  /* StoredChanges. */
  GPtrArray  *changes;
  GPtrArray  *ops;
  GPtrArray  *files;
  /* The one text member this step changed, when it can absorb the next. */
  char       *merge_member;
  gint64      time;
  /* Unique for the history's life, so that the saved state can be found. */
  guint64     serial;
} Step;

struct _SkHistory
{
  GObject      parent_instance;

  SkProject   *project;

  /* Undoable state when the last step closed: identifier → its JSON text
   * (a #GRefString), and the process's own members.
   */
  GHashTable  *snapshot;
  JsonObject  *header;
  /* Where a node's state is written before it is compared or kept. */
  GString     *scratch;

  /* What happened since then: identifiers of touched nodes, and Ops. */
  GHashTable  *dirty;
  GPtrArray   *ops;
  GPtrArray   *files;

  char        *group_label;
  guint        depth;
  guint        idle_id;
  /* The emission hook on SkNode::changed, and the thread it listens in. */
  guint        changed_signal;
  gulong       changed_hook;
  GThread     *thread;
  /* Where the list of nodes last changed, for the node signal after it. */
  guint        pending_position;

  GQueue       undo_steps;
  GQueue       redo_steps;

  gint64       merge_window_us;

  /* The undo step on top when the workflow was last saved (0: none), so
   * that undoing back to it clears the unsaved mark. */
  guint64      next_serial;
  guint64      saved_serial;

  /* What the properties said last, so that they notify only changes. */
  char        *last_undo_label;
  char        *last_redo_label;

  guint        header_dirty : 1;
  guint        applying : 1;
  guint        can_merge : 1;
  guint        last_can_undo : 1;
  guint        last_can_redo : 1;
  guint        saved_known : 1;
};

G_DEFINE_FINAL_TYPE (SkHistory, sk_history, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_UNDO_LABEL,
  PROP_REDO_LABEL,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static void
change_free (gpointer data)
{
  Change *change = data;

  g_free (change->id);
  g_clear_pointer (&change->before, json_object_unref);
  g_clear_pointer (&change->after, json_object_unref);
  g_free (change);
}

static void
stored_change_free (gpointer data)
{
  StoredChange *change = data;

  g_free (change->id);
  g_clear_pointer (&change->before, g_ref_string_release);
  g_clear_pointer (&change->after, g_ref_string_release);
  g_free (change);
}

static GRefString *
ref_string0 (GRefString *text)
{
  return text != NULL ? g_ref_string_acquire (text) : NULL;
}

static void
op_free (gpointer data)
{
  Op *op = data;

  g_free (op->id);
  g_free (op->json);
  g_free (op);
}

static void
file_change_free (gpointer data)
{
  FileChange *change = data;

  g_clear_object (&change->file);
  g_clear_pointer (&change->before, g_bytes_unref);
  g_clear_pointer (&change->after, g_bytes_unref);
  g_free (change);
}

static void
step_free (gpointer data)
{
  Step *step = data;

  g_free (step->label);
  g_clear_pointer (&step->changes, g_ptr_array_unref);
  g_clear_pointer (&step->ops, g_ptr_array_unref);
  g_clear_pointer (&step->files, g_ptr_array_unref);
  g_free (step->merge_member);
  g_free (step);
}

/*
 * Returns the one member in which @before and @after differ when it holds
 * typed text that a following change of the same text may join: a string,
 * or the node's "input" when only its text changed.
 */
static const char *
find_text_member (JsonObject *before,
                  JsonObject *after)
{
  const char *member = NULL;
  const char *inner = NULL;
  JsonObject *input_before;
  JsonObject *input_after;

  if (before == NULL || after == NULL)
    return NULL;

  if (_sk_history_count_changed_members (before, after, &member) != 1)
    return NULL;

  if (sk_json_get_string (before, member) != NULL && sk_json_get_string (after, member) != NULL)
    return member;

  if (!g_str_equal (member, "input"))
    return NULL;

  input_before = sk_json_get_object (before, "input");
  input_after = sk_json_get_object (after, "input");
  if (input_before == NULL || input_after == NULL)
    return NULL;

  if (_sk_history_count_changed_members (input_before, input_after, &inner) == 1 &&
      g_str_equal (inner, "text") &&
      sk_json_get_string (input_before, "text") != NULL &&
      sk_json_get_string (input_after, "text") != NULL)
    return member;

  return NULL;
}

/* The members of "skele" that the user changes, besides the position: the
 * step's permissions and its control flow (DESIGN §10). */
static const char * const user_skele_members[] = {
  "network", "read", "approval", "when", "foreach", "workflow", NULL
};

/* A node's undoable state: what is saved about it, less the results of its
 * last run and the "skele" members that the runner and the agent keep; of
 * "skele" only the canvas position, the step's permissions and its control
 * flow.
 */
static JsonObject *
node_state (SkNode *node)
{
  JsonObject *object = sk_node_to_json (node);
  JsonObject *saved_skele = sk_json_get_object (object, "skele");
  JsonObject *skele = json_object_new ();
  double x, y;

  json_object_remove_member (object, "output");

  if (sk_node_get_position (node, &x, &y))
    {
      json_object_set_double_member (skele, "x", x);
      json_object_set_double_member (skele, "y", y);
    }
  for (guint i = 0; saved_skele != NULL && user_skele_members[i] != NULL; i++)
    if (json_object_has_member (saved_skele, user_skele_members[i]))
      json_object_set_member (skele, user_skele_members[i],
                              json_node_copy (json_object_get_member (saved_skele,
                                                                      user_skele_members[i])));

  json_object_remove_member (object, "skele");
  if (json_object_get_size (skele) > 0)
    json_object_set_object_member (object, "skele", skele);
  else
    json_object_unref (skele);

  return object;
}

/* Compact JSON text ---------------------------------------------------- */

/* Appends @text as a JSON string. Every control character is escaped, so
 * that the parser reads back exactly what was written; bytes that are not
 * UTF-8, which JSON cannot hold, become U+FFFD as loading a file makes them.
 */
static void
append_text (GString    *out,
             const char *text)
{
  g_autofree char *valid = NULL;
  const char *run = text != NULL ? text : "";
  const char *p;

  if (!g_utf8_validate (run, -1, NULL))
    run = valid = g_utf8_make_valid (run, -1);

  g_string_append_c (out, '"');
  for (p = run; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c != '\\' && c != '"' && c >= 0x20)
        continue;

      g_string_append_len (out, run, p - run);
      run = p + 1;
      switch (c)
        {
        case '\\': g_string_append (out, "\\\\"); break;
        case '"': g_string_append (out, "\\\""); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default: g_string_append_printf (out, "\\u%04x", (guint) c); break;
        }
    }
  g_string_append_len (out, run, p - run);
  g_string_append_c (out, '"');
}

static void append_object (GString    *out,
                           JsonObject *object);

/* Appends @node without spaces. Numbers keep their type: a double is
 * written with a point or an exponent, and is read back as one.
 */
static void
append_node (GString  *out,
             JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      append_object (out, json_node_get_object (node));
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint length = json_array_get_length (array);

        g_string_append_c (out, '[');
        for (guint i = 0; i < length; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            append_node (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;

        case G_TYPE_DOUBLE:
          sk_json_append_double (out, json_node_get_double (node));
          break;

        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;

        case G_TYPE_STRING:
          append_text (out, json_node_get_string (node));
          break;

        default:
          g_string_append (out, "null");
          break;
        }
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

static void
append_members (GString    *out,
                JsonObject *object,
                gboolean   *first)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (object == NULL)
    return;

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      if (!*first)
        g_string_append_c (out, ',');
      *first = FALSE;
      append_text (out, name);
      g_string_append_c (out, ':');
      append_node (out, member);
    }
}

static void
append_object (GString    *out,
               JsonObject *object)
{
  gboolean first = TRUE;

  g_string_append_c (out, '{');
  append_members (out, object, &first);
  g_string_append_c (out, '}');
}

static void
append_strv (GString            *out,
             const char * const *strv)
{
  g_string_append_c (out, '[');
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      append_text (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

static char *
object_to_text (JsonObject *object)
{
  GString *out = g_string_new (NULL);

  append_object (out, object);
  return g_string_free (out, FALSE);
}

static gboolean
holds_any (JsonObject         *object,
           const char * const *names)
{
  for (guint i = 0; object != NULL && names[i] != NULL; i++)
    if (json_object_has_member (object, names[i]))
      return TRUE;

  return FALSE;
}

/* Appends node_state (@node) as append_object() would write it, without
 * building it: the same members in the same order. Returns %FALSE, having
 * appended nothing, when a member the node does not know has the name of
 * one it knows, which only sk_node_to_json() resolves.
 */
static gboolean
append_node_state (GString *out,
                   SkNode  *node)
{
  static const char * const node_members[] = {
    "name", "description", "priors", "run", "input", "output", "skele", NULL
  };
  static const char * const io_members[] = { "text", "files", NULL };
  gboolean first = FALSE;
  gboolean skele_first = TRUE;

  if (holds_any (node->extra, node_members) || holds_any (node->input_extra, io_members))
    return FALSE;

  g_string_append (out, "{\"name\":");
  append_text (out, node->name);
  g_string_append (out, ",\"description\":");
  append_text (out, node->description);
  g_string_append (out, ",\"priors\":");
  append_strv (out, (const char * const *) node->priors);
  g_string_append (out, node->run ? ",\"run\":true" : ",\"run\":false");
  g_string_append (out, ",\"input\":{\"text\":");
  append_text (out, node->input_text);
  g_string_append (out, ",\"files\":");
  append_strv (out, (const char * const *) node->input_files);
  append_members (out, node->input_extra, &first);
  g_string_append_c (out, '}');
  append_members (out, node->extra, &first);

  for (guint i = 0; node->has_position && i < 2; i++)
    {
      g_string_append (out, i == 0 ? ",\"skele\":{\"x\":" : ",\"y\":");
      sk_json_append_double (out, i == 0 ? node->x : node->y);
      skele_first = FALSE;
    }
  for (guint i = 0; node->skele_extra != NULL && user_skele_members[i] != NULL; i++)
    {
      JsonNode *value;

      if (!json_object_has_member (node->skele_extra, user_skele_members[i]))
        continue;
      value = json_object_get_member (node->skele_extra, user_skele_members[i]);
      g_string_append (out, skele_first ? ",\"skele\":{\"" : ",\"");
      g_string_append (out, user_skele_members[i]);
      g_string_append (out, "\":");
      append_node (out, value);
      skele_first = FALSE;
    }
  if (!skele_first)
    g_string_append_c (out, '}');

  g_string_append_c (out, '}');
  return TRUE;
}

/* The node's undoable state as JSON text. */
static GRefString *
node_state_text (SkHistory *self,
                 SkNode    *node)
{
  g_string_truncate (self->scratch, 0);
  if (!append_node_state (self->scratch, node))
    {
      g_autoptr(JsonObject) state = node_state (node);

      append_object (self->scratch, state);
    }

  return g_ref_string_new_len (self->scratch->str, self->scratch->len);
}

/* Reads back what append_object() wrote. */
static JsonObject *
parse_state (const char *text)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (text == NULL)
    return NULL;

  /* The history wrote the text itself, so this does not fail; if it did,
   * applying nothing is better than applying an empty state, which would
   * clear the node.
   */
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, -1, &error))
    {
      g_warning ("Could not read back a state kept for undo: %s", error->message);
      return NULL;
    }

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;

  return json_object_ref (json_node_get_object (root));
}

/* Whether two kept states are the same: as text, or failing that (a node
 * written once with its fast writer and once without) as JSON.
 */
static gboolean
states_equal (const char *a,
              const char *b)
{
  g_autoptr(JsonObject) object_a = NULL;
  g_autoptr(JsonObject) object_b = NULL;

  if (a == NULL || b == NULL)
    return a == b;
  if (strcmp (a, b) == 0)
    return TRUE;

  object_a = parse_state (a);
  object_b = parse_state (b);
  return object_a != NULL && object_b != NULL && json_object_equal (object_a, object_b);
}

/* Gives @node the undoable state @state and keeps the rest. */
static void
apply_node_state (SkNode     *node,
                  JsonObject *state)
{
  g_autoptr(JsonObject) current = sk_node_to_json (node);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonObject) skele = json_object_new ();
  g_autoptr(GList) members = json_object_get_members (state);
  g_autoptr(GError) error = NULL;
  JsonObject *current_skele;
  JsonObject *state_skele;

  for (const GList *l = members; l != NULL; l = l->next)
    {
      if (g_str_equal (l->data, "skele"))
        continue;

      json_object_set_member (object, l->data,
                              json_node_copy (json_object_get_member (state, l->data)));
    }

  if (json_object_has_member (current, "output"))
    json_object_set_member (object, "output",
                            json_node_copy (json_object_get_member (current, "output")));

  current_skele = sk_json_get_object (current, "skele");
  if (current_skele != NULL)
    {
      g_autoptr(GList) skele_members = json_object_get_members (current_skele);

      for (const GList *l = skele_members; l != NULL; l = l->next)
        {
          if (g_str_equal (l->data, "x") || g_str_equal (l->data, "y") ||
              g_strv_contains (user_skele_members, l->data))
            continue;

          json_object_set_member (skele, l->data,
                                  json_node_copy (json_object_get_member (current_skele,
                                                                          l->data)));
        }
    }

  /* A node that had no position keeps the one it was given since: nodes
   * cannot lose their place on the canvas.
   */
  state_skele = sk_json_get_object (state, "skele");
  if (state_skele != NULL)
    {
      double x = 0, y = 0;

      if (sk_json_get_double (state_skele, "x", &x) && sk_json_get_double (state_skele, "y", &y))
        {
          json_object_set_double_member (skele, "x", x);
          json_object_set_double_member (skele, "y", y);
        }
      for (guint i = 0; user_skele_members[i] != NULL; i++)
        if (json_object_has_member (state_skele, user_skele_members[i]))
          json_object_set_member (skele, user_skele_members[i],
                                  json_node_copy (json_object_get_member (state_skele,
                                                                          user_skele_members[i])));
    }

  if (json_object_get_size (skele) > 0)
    json_object_set_object_member (object, "skele", g_steal_pointer (&skele));

  if (!sk_node_update_from_json (node, object, &error))
    g_warning ("Could not restore node %s: %s", sk_node_get_id (node), error->message);
}

static void
schedule_close (SkHistory *self);

static void
close_step (SkHistory  *self,
            const char *label);

static void
mark_dirty (SkHistory  *self,
            const char *id)
{
  if (!g_hash_table_contains (self->dirty, id))
    g_hash_table_add (self->dirty, g_strdup (id));

  schedule_close (self);
}

/* Hears SkNode::changed of every node in the process, rather than through
 * a handler on each node of the workflow: a handler costs each step of a
 * large workflow memory, and this lookup costs a change next to nothing.
 * Nodes of other workflows, and nodes taken out of this one, are not ours;
 * nor are nodes in other threads, such as those of a workflow being
 * loaded, which must not look into this workflow while its thread changes
 * it.
 */
static gboolean
node_changed_hook (GSignalInvocationHint *hint,
                   guint                  n_values,
                   const GValue          *values,
                   gpointer               data)
{
  SkHistory *self = data;
  SkNode *node;

  g_assert (SK_IS_HISTORY (self));

  if (g_thread_self () != self->thread ||
      n_values < 1 || !G_VALUE_HOLDS (&values[0], SK_TYPE_NODE))
    return TRUE;

  node = g_value_get_object (&values[0]);
  if (self->project != NULL && node != NULL &&
      sk_project_get_node (self->project, sk_node_get_id (node)) == node)
    mark_dirty (self, sk_node_get_id (node));

  return TRUE;
}

static void
add_op (SkHistory *self,
        OpKind     kind,
        SkNode    *node)
{
  g_autoptr(JsonObject) json = sk_node_to_json (node);
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->id = g_strdup (sk_node_get_id (node));
  op->json = object_to_text (json);
  op->position = self->pending_position;

  /* The list model said where the node went or was; trust it only when it
   * agrees with the node, since another emission may have come between.
   */
  if (kind == OP_ADD)
    {
      g_autoptr(SkNode) there = g_list_model_get_item (G_LIST_MODEL (self->project),
                                                       op->position);

      if (there != node)
        {
          guint n = g_list_model_get_n_items (G_LIST_MODEL (self->project));

          for (op->position = 0; op->position < n; op->position++)
            {
              g_autoptr(SkNode) each = g_list_model_get_item (G_LIST_MODEL (self->project),
                                                              op->position);

              if (each == node)
                break;
            }
        }
    }

  g_ptr_array_add (self->ops, op);
  self->pending_position = G_MAXUINT;
}

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  SkHistory  *self)
{
  g_assert (SK_IS_HISTORY (self));

  self->pending_position = position;
}

static void
node_added_cb (SkProject *project,
               SkNode    *node,
               SkHistory *self)
{
  g_assert (SK_IS_PROJECT (project));
  g_assert (SK_IS_NODE (node));
  g_assert (SK_IS_HISTORY (self));

  if (!self->applying)
    add_op (self, OP_ADD, node);

  mark_dirty (self, sk_node_get_id (node));
}

static void
node_removed_cb (SkProject *project,
                 SkNode    *node,
                 SkHistory *self)
{
  g_assert (SK_IS_PROJECT (project));
  g_assert (SK_IS_NODE (node));
  g_assert (SK_IS_HISTORY (self));

  if (!self->applying)
    {
      /* Removal reports the position it removed at; without it, undo puts
       * the node back last.
       */
      if (self->pending_position == G_MAXUINT)
        self->pending_position = g_list_model_get_n_items (G_LIST_MODEL (project));

      add_op (self, OP_REMOVE, node);
    }

  mark_dirty (self, sk_node_get_id (node));
}

static void
project_changed_cb (SkProject *project,
                    SkHistory *self)
{
  g_assert (SK_IS_PROJECT (project));
  g_assert (SK_IS_HISTORY (self));

  self->header_dirty = TRUE;
  schedule_close (self);
}

static void
take_snapshot (SkHistory *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->project));

  g_hash_table_remove_all (self->snapshot);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SkNode) node = g_list_model_get_item (G_LIST_MODEL (self->project), i);

      g_hash_table_insert (self->snapshot,
                           g_strdup (sk_node_get_id (node)),
                           node_state_text (self, node));
    }

  g_clear_pointer (&self->header, json_object_unref);
  self->header = _sk_project_header_to_json (self->project);
}

/*
 * Compares what was touched since the last step with the snapshot, brings
 * the snapshot up to date and forgets what was touched. Differences go into
 * @stored, as the step keeps them, and into @changes, parsed, when these
 * are not %NULL; identifiers of nodes that were touched, exist and did not
 * change go into @unchanged.
 */
static void
take_changes (SkHistory  *self,
              GPtrArray  *stored,
              GPtrArray  *changes,
              GHashTable *unchanged)
{
  GHashTableIter iter;
  const char *id;

  g_assert ((stored == NULL) == (changes == NULL));

  g_hash_table_iter_init (&iter, self->dirty);
  while (g_hash_table_iter_next (&iter, (gpointer *) &id, NULL))
    {
      SkNode *node = sk_project_get_node (self->project, id);
      GRefString *before = g_hash_table_lookup (self->snapshot, id);
      g_autoptr(GRefString) after = node != NULL ? node_state_text (self, node) : NULL;
      g_autoptr(JsonObject) before_object = NULL;
      g_autoptr(JsonObject) after_object = NULL;

      if (before == NULL && after == NULL)
        continue;

      if (before != NULL && after != NULL && strcmp (before, after) == 0)
        {
          if (unchanged != NULL)
            g_hash_table_add (unchanged, g_strdup (id));
          continue;
        }

      if (changes != NULL)
        {
          Change *change;
          StoredChange *kept;

          /* Text that differs may still hold the same JSON. */
          before_object = parse_state (before);
          after_object = parse_state (after);
          if (before_object != NULL && after_object != NULL &&
              json_object_equal (before_object, after_object))
            {
              if (unchanged != NULL)
                g_hash_table_add (unchanged, g_strdup (id));
              g_hash_table_insert (self->snapshot, g_strdup (id), g_steal_pointer (&after));
              continue;
            }

          change = g_new0 (Change, 1);
          change->id = g_strdup (id);
          change->before = g_steal_pointer (&before_object);
          change->after = g_steal_pointer (&after_object);
          g_ptr_array_add (changes, change);

          kept = g_new0 (StoredChange, 1);
          kept->id = g_strdup (id);
          kept->before = ref_string0 (before);
          kept->after = ref_string0 (after);
          g_ptr_array_add (stored, kept);
        }

      if (after != NULL)
        g_hash_table_insert (self->snapshot, g_strdup (id), g_steal_pointer (&after));
      else
        g_hash_table_remove (self->snapshot, id);
    }

  g_hash_table_remove_all (self->dirty);

  if (self->header_dirty)
    {
      g_autoptr(JsonObject) header = _sk_project_header_to_json (self->project);

      if (!json_object_equal (self->header, header))
        {
          if (changes != NULL)
            {
              Change *change = g_new0 (Change, 1);
              StoredChange *kept = g_new0 (StoredChange, 1);
              g_autofree char *before = object_to_text (self->header);
              g_autofree char *after = object_to_text (header);

              change->before = json_object_ref (self->header);
              change->after = json_object_ref (header);
              g_ptr_array_add (changes, change);

              kept->before = g_ref_string_new (before);
              kept->after = g_ref_string_new (after);
              g_ptr_array_add (stored, kept);
            }

          g_clear_pointer (&self->header, json_object_unref);
          self->header = g_steal_pointer (&header);
        }

      self->header_dirty = FALSE;
    }
}

static guint64
top_serial (SkHistory *self)
{
  Step *top = g_queue_peek_head (&self->undo_steps);

  return top != NULL ? top->serial : 0;
}

/* After undo or redo, the workflow is as it was saved when the step on top
 * is the one that was on top then. */
static void
check_saved_state (SkHistory *self)
{
  if (self->saved_known &&
      top_serial (self) == self->saved_serial &&
      sk_project_get_modified (self->project))
    sk_project_set_modified (self->project, FALSE);
}

static void
project_modified_cb (SkHistory *self)
{
  if (sk_project_get_modified (self->project) || self->applying)
    return;

  if (self->depth > 0)
    {
      self->saved_known = FALSE;
      return;
    }

  /* A change still waiting for its step was saved along with the rest. */
  close_step (self, NULL);
  self->saved_serial = top_serial (self);
  self->saved_known = TRUE;
  /* Typing after a save starts a step of its own, so that undo can stop at
   * the saved text. */
  self->can_merge = FALSE;
}

static void
update_properties (SkHistory *self)
{
  gboolean can_undo = !g_queue_is_empty (&self->undo_steps);
  gboolean can_redo = !g_queue_is_empty (&self->redo_steps);
  const char *undo_label = sk_history_get_undo_label (self);
  const char *redo_label = sk_history_get_redo_label (self);

  g_object_freeze_notify (G_OBJECT (self));

  if (self->last_can_undo != can_undo)
    {
      self->last_can_undo = can_undo;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_UNDO]);
    }

  if (self->last_can_redo != can_redo)
    {
      self->last_can_redo = can_redo;
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_CAN_REDO]);
    }

  if (g_strcmp0 (self->last_undo_label, undo_label) != 0)
    {
      g_free (self->last_undo_label);
      self->last_undo_label = g_strdup (undo_label);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_UNDO_LABEL]);
    }

  if (g_strcmp0 (self->last_redo_label, redo_label) != 0)
    {
      g_free (self->last_redo_label);
      self->last_redo_label = g_strdup (redo_label);
      g_object_notify_by_pspec (G_OBJECT (self), properties [PROP_REDO_LABEL]);
    }

  g_object_thaw_notify (G_OBJECT (self));
}

static void
clear_redo (SkHistory *self)
{
  g_queue_clear_full (&self->redo_steps, step_free);
}

/*
 * Folds @step into the last undo step when both changed the same text of
 * the same node a moment apart, as typing does. Returns %TRUE if @step was
 * consumed.
 */
static gboolean
merge_step (SkHistory *self,
            Step      *step)
{
  Step *last = g_queue_peek_head (&self->undo_steps);
  StoredChange *last_change;
  StoredChange *change;

  if (last == NULL ||
      !self->can_merge ||
      step->merge_member == NULL ||
      last->merge_member == NULL ||
      !g_str_equal (step->merge_member, last->merge_member) ||
      g_strcmp0 (step->label, last->label) != 0 ||
      step->time - last->time >= self->merge_window_us)
    return FALSE;

  last_change = g_ptr_array_index (last->changes, 0);
  change = g_ptr_array_index (step->changes, 0);
  if (g_strcmp0 (last_change->id, change->id) != 0)
    return FALSE;

  g_clear_pointer (&last_change->after, g_ref_string_release);
  last_change->after = ref_string0 (change->after);
  last->time = step->time;
  if (last->serial == self->saved_serial)
    self->saved_known = FALSE;

  /* Typing that ends where it began leaves nothing to undo. */
  if (states_equal (last_change->before, last_change->after))
    {
      step_free (g_queue_pop_head (&self->undo_steps));
      self->can_merge = FALSE;
    }

  step_free (step);
  return TRUE;
}

static gboolean
ops_touch_any (GPtrArray  *ops,
               GHashTable *ids)
{
  for (guint i = 0; i < ops->len; i++)
    {
      Op *op = g_ptr_array_index (ops, i);

      if (g_hash_table_contains (ids, op->id))
        return TRUE;
    }

  return FALSE;
}

static void
close_step (SkHistory  *self,
            const char *label)
{
  g_autoptr(GHashTable) unchanged = NULL;
  g_autoptr(GPtrArray) ops = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  Step *step;

  g_clear_handle_id (&self->idle_id, g_source_remove);

  if (g_hash_table_size (self->dirty) == 0 && !self->header_dirty && self->ops->len == 0 &&
      self->files->len == 0)
    return;

  unchanged = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  step = g_new0 (Step, 1);
  step->changes = g_ptr_array_new_with_free_func (stored_change_free);
  changes = g_ptr_array_new_with_free_func (change_free);
  take_changes (self, step->changes, changes, unchanged);

  ops = g_steal_pointer (&self->ops);
  self->ops = g_ptr_array_new_with_free_func (op_free);

  /* Nodes added and removed again, and changes the history does not undo
   * (results, run state), leave no step. A node removed and added back the
   * same is kept: its place in the list may have changed.
   */
  step->files = g_steal_pointer (&self->files);
  self->files = g_ptr_array_new_with_free_func (file_change_free);
  if (step->changes->len == 0 && step->files->len == 0 && !ops_touch_any (ops, unchanged))
    {
      step_free (step);
      return;
    }

  step->serial = ++self->next_serial;

  step->ops = g_steal_pointer (&ops);
  step->time = g_get_monotonic_time ();
  step->label = label != NULL ? g_strdup (label) : _sk_history_describe_changes (changes);

  if (step->ops->len == 0 && step->files->len == 0 && changes->len == 1)
    {
      Change *change = g_ptr_array_index (changes, 0);

      step->merge_member = g_strdup (find_text_member (change->before, change->after));
    }

  clear_redo (self);

  if (!merge_step (self, step))
    {
      g_queue_push_head (&self->undo_steps, step);
      while (g_queue_get_length (&self->undo_steps) > SK_HISTORY_MAX_STEPS)
        {
          /* The steps back to a state saved before the oldest are gone. */
          if (self->saved_serial == 0)
            self->saved_known = FALSE;
          step_free (g_queue_pop_tail (&self->undo_steps));
        }
      self->can_merge = TRUE;
    }

  update_properties (self);
}

static gboolean
close_idle_cb (gpointer data)
{
  SkHistory *self = data;

  g_assert (SK_IS_HISTORY (self));

  self->idle_id = 0;
  close_step (self, NULL);

  return G_SOURCE_REMOVE;
}

static void
schedule_close (SkHistory *self)
{
  if (self->applying || self->depth > 0 || self->idle_id != 0)
    return;

  /* One main loop dispatch is one step: a high priority idle runs before
   * the next input event is handled.
   */
  self->idle_id = g_idle_add_full (G_PRIORITY_HIGH, close_idle_cb, self, NULL);
  g_source_set_name_by_id (self->idle_id, "[sk-history] close step");
}

static void
insert_node_from_json (SkHistory *self,
                       Op        *op)
{
  g_autoptr(JsonObject) json = parse_state (op->json);
  g_autoptr(SkNode) node = NULL;
  g_autoptr(GError) error = NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->project));

  if (json == NULL)
    return;

  node = sk_node_new_from_json (op->id, json);
  if (!sk_project_insert_node (self->project, MIN (op->position, n), node, &error))
    g_warning ("Could not restore node %s: %s", op->id, error->message);
}

static void
remove_node_by_id (SkHistory  *self,
                   const char *id)
{
  SkNode *node = sk_project_get_node (self->project, id);

  if (node != NULL)
    sk_project_remove_node (self->project, node);
}

static gboolean
file_is (GFile  *file,
         GBytes *contents)
{
  g_autoptr(GBytes) current = g_file_load_bytes (file, NULL, NULL, NULL);

  if (contents == NULL || current == NULL)
    return contents == NULL && current == NULL &&
           !g_file_query_exists (file, NULL);

  return g_bytes_equal (current, contents);
}

/* Puts @contents in @file when it holds @expected: a file changed since,
 * by hand or by another program, is the user's and is left alone. */
static void
write_file_state (GFile  *file,
                  GBytes *expected,
                  GBytes *contents)
{
  g_autoptr(GError) error = NULL;

  if (!file_is (file, expected))
    {
      g_debug ("%s changed since; it is left as it is", g_file_peek_path (file));
      return;
    }

  if (contents == NULL)
    {
      if (!g_file_delete (file, NULL, &error) &&
          !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_warning ("Could not remove %s: %s", g_file_peek_path (file), error->message);
      return;
    }

  if (!g_file_replace_contents (file, g_bytes_get_data (contents, NULL), g_bytes_get_size (contents),
                                NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error))
    g_warning ("Could not write %s: %s", g_file_peek_path (file), error->message);
}

/* Puts the workflow in the state before (@undo) or after @step. */
static void
apply_step (SkHistory *self,
            Step      *step,
            gboolean   undo)
{
  self->applying = TRUE;

  /* Files first, so that a step that comes back finds its script as it was. */
  for (guint i = 0; step->files != NULL && i < step->files->len; i++)
    {
      FileChange *change = g_ptr_array_index (step->files, undo ? step->files->len - 1 - i : i);

      write_file_state (change->file,
                        undo ? change->after : change->before,
                        undo ? change->before : change->after);
    }

  /* Nodes first, in the opposite order for undo, so that each goes back to
   * its place and removed nodes exist again before edges point at them.
   */
  for (guint i = 0; i < step->ops->len; i++)
    {
      Op *op = g_ptr_array_index (step->ops, undo ? step->ops->len - 1 - i : i);

      if ((op->kind == OP_ADD) == undo)
        remove_node_by_id (self, op->id);
      else
        insert_node_from_json (self, op);
    }

  for (guint i = 0; i < step->changes->len; i++)
    {
      StoredChange *change = g_ptr_array_index (step->changes, i);
      g_autoptr(JsonObject) state = parse_state (undo ? change->before : change->after);
      SkNode *node;

      if (state == NULL)
        continue;

      if (change->id == NULL)
        {
          _sk_project_apply_header_json (self->project, state);
          continue;
        }

      node = sk_project_get_node (self->project, change->id);
      if (node != NULL)
        apply_node_state (node, state);
    }

  self->applying = FALSE;

  /* The snapshot follows what applying the step touched, without a step. */
  take_changes (self, NULL, NULL, NULL);
  g_ptr_array_set_size (self->ops, 0);
  self->pending_position = G_MAXUINT;
}

static void
sk_history_constructed (GObject *object)
{
  SkHistory *self = (SkHistory *)object;
  gpointer node_class;

  G_OBJECT_CLASS (sk_history_parent_class)->constructed (object);

  g_return_if_fail (SK_IS_PROJECT (self->project));

  take_snapshot (self);

  /* The signal exists once its class does, which it need not yet: the
   * workflow may have no node. */
  node_class = g_type_class_ref (SK_TYPE_NODE);
  self->thread = g_thread_self ();
  self->changed_signal = g_signal_lookup ("changed", SK_TYPE_NODE);
  g_type_class_unref (node_class);
  self->changed_hook = g_signal_add_emission_hook (self->changed_signal, 0,
                                                   node_changed_hook, self, NULL);

  g_signal_connect (self->project, "items-changed", G_CALLBACK (items_changed_cb), self);
  g_signal_connect (self->project, "node-added", G_CALLBACK (node_added_cb), self);
  g_signal_connect (self->project, "node-removed", G_CALLBACK (node_removed_cb), self);
  g_signal_connect (self->project, "changed", G_CALLBACK (project_changed_cb), self);
  g_signal_connect_swapped (self->project, "notify::modified", G_CALLBACK (project_modified_cb), self);
  self->saved_known = !sk_project_get_modified (self->project);
}

static void
sk_history_dispose (GObject *object)
{
  SkHistory *self = (SkHistory *)object;

  g_clear_handle_id (&self->idle_id, g_source_remove);

  if (self->changed_hook != 0)
    {
      g_signal_remove_emission_hook (self->changed_signal, self->changed_hook);
      self->changed_hook = 0;
    }

  if (self->project != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->project, self);
      g_clear_object (&self->project);
    }

  g_queue_clear_full (&self->undo_steps, step_free);
  g_queue_clear_full (&self->redo_steps, step_free);
  g_clear_pointer (&self->header, json_object_unref);

  G_OBJECT_CLASS (sk_history_parent_class)->dispose (object);
}

static void
sk_history_finalize (GObject *object)
{
  SkHistory *self = (SkHistory *)object;

  g_clear_pointer (&self->snapshot, g_hash_table_unref);
  g_string_free (self->scratch, TRUE);
  g_clear_pointer (&self->dirty, g_hash_table_unref);
  g_clear_pointer (&self->ops, g_ptr_array_unref);
  g_clear_pointer (&self->files, g_ptr_array_unref);
  g_clear_pointer (&self->group_label, g_free);
  g_clear_pointer (&self->last_undo_label, g_free);
  g_clear_pointer (&self->last_redo_label, g_free);

  G_OBJECT_CLASS (sk_history_parent_class)->finalize (object);
}

static void
sk_history_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  SkHistory *self = SK_HISTORY (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;

    case PROP_CAN_UNDO:
      g_value_set_boolean (value, sk_history_get_can_undo (self));
      break;

    case PROP_CAN_REDO:
      g_value_set_boolean (value, sk_history_get_can_redo (self));
      break;

    case PROP_UNDO_LABEL:
      g_value_set_string (value, sk_history_get_undo_label (self));
      break;

    case PROP_REDO_LABEL:
      g_value_set_string (value, sk_history_get_redo_label (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_history_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  SkHistory *self = SK_HISTORY (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      self->project = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_history_class_init (SkHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = sk_history_constructed;
  object_class->dispose = sk_history_dispose;
  object_class->finalize = sk_history_finalize;
  object_class->get_property = sk_history_get_property;
  object_class->set_property = sk_history_set_property;

  /**
   * SkHistory:project:
   *
   * The workflow whose changes are recorded.
   */
  properties [PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, SK_TYPE_PROJECT,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  /**
   * SkHistory:can-undo:
   *
   * Whether there is a step to undo.
   */
  properties [PROP_CAN_UNDO] =
    g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkHistory:can-redo:
   *
   * Whether there is an undone step to redo.
   */
  properties [PROP_CAN_REDO] =
    g_param_spec_boolean ("can-redo", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkHistory:undo-label:
   *
   * What undo would undo, such as "Move Step", or %NULL.
   */
  properties [PROP_UNDO_LABEL] =
    g_param_spec_string ("undo-label", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * SkHistory:redo-label:
   *
   * What redo would redo, or %NULL.
   */
  properties [PROP_REDO_LABEL] =
    g_param_spec_string ("redo-label", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sk_history_init (SkHistory *self)
{
  self->snapshot = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_ref_string_release);
  self->scratch = g_string_new (NULL);
  self->dirty = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->ops = g_ptr_array_new_with_free_func (op_free);
  self->files = g_ptr_array_new_with_free_func (file_change_free);
  self->pending_position = G_MAXUINT;
  self->merge_window_us = SK_HISTORY_MERGE_WINDOW_US;
  g_queue_init (&self->undo_steps);
  g_queue_init (&self->redo_steps);
}

/**
 * sk_history_new:
 * @project: the workflow to follow
 *
 * Creates an undo history for @project. From then on every change to what
 * is saved about @project becomes an undoable step, whoever makes it; the
 * results of runs do not.
 *
 * Returns: (transfer full): a new #SkHistory
 */
SkHistory *
sk_history_new (SkProject *project)
{
  g_return_val_if_fail (SK_IS_PROJECT (project), NULL);

  return g_object_new (SK_TYPE_HISTORY, "project", project, NULL);
}

/**
 * sk_history_get_project:
 * @self: a #SkHistory
 *
 * Returns: (transfer none): the workflow whose changes @self records
 */
SkProject *
sk_history_get_project (SkHistory *self)
{
  g_return_val_if_fail (SK_IS_HISTORY (self), NULL);

  return self->project;
}

/**
 * sk_history_begin:
 * @self: a #SkHistory
 * @label: (nullable): what the step does, such as "Move Step", or %NULL to
 *   name it by what changed
 *
 * Starts a group of changes that are undone together, such as a drag on
 * the canvas. Groups nest: the changes up to the matching outermost
 * sk_history_end() make one step, named by the outermost @label. Changes
 * made before this call form a step of their own.
 */
void
sk_history_begin (SkHistory  *self,
                  const char *label)
{
  g_return_if_fail (SK_IS_HISTORY (self));

  if (self->depth == 0)
    {
      close_step (self, NULL);
      g_free (self->group_label);
      self->group_label = g_strdup (label);
    }

  self->depth++;
}

/**
 * sk_history_end:
 * @self: a #SkHistory
 *
 * Ends a group started with sk_history_begin(). Ending the outermost group
 * records its changes as one step.
 */
void
sk_history_end (SkHistory *self)
{
  g_autofree char *label = NULL;

  g_return_if_fail (SK_IS_HISTORY (self));
  g_return_if_fail (self->depth > 0);

  self->depth--;
  if (self->depth > 0)
    return;

  label = g_steal_pointer (&self->group_label);
  close_step (self, label);
}

/**
 * sk_history_add_file_change:
 * @self: a #SkHistory
 * @file: a file the change wrote, removed or created
 * @before: (nullable): its contents before, or %NULL if it did not exist
 * @after: (nullable): its contents after, or %NULL if it was removed
 *
 * Adds the change of a file outside `process.json` to the step being
 * recorded, so that undoing the step puts @before back and redoing it
 * @after — as when a change to the workflow rewrites a step's script.
 * Call it inside a group, with the workflow's own changes.
 */
void
sk_history_add_file_change (SkHistory *self,
                            GFile     *file,
                            GBytes    *before,
                            GBytes    *after)
{
  FileChange *change;

  g_return_if_fail (SK_IS_HISTORY (self));
  g_return_if_fail (G_IS_FILE (file));

  change = g_new0 (FileChange, 1);
  change->file = g_object_ref (file);
  change->before = before != NULL ? g_bytes_ref (before) : NULL;
  change->after = after != NULL ? g_bytes_ref (after) : NULL;
  g_ptr_array_add (self->files, change);
  schedule_close (self);
}

/**
 * sk_history_flush:
 * @self: a #SkHistory
 *
 * Records the changes made outside a group as a step now rather than when
 * the main loop is next idle. Does nothing while a group is open.
 */
void
sk_history_flush (SkHistory *self)
{
  g_return_if_fail (SK_IS_HISTORY (self));

  if (self->depth == 0)
    close_step (self, NULL);
}

gboolean
sk_history_get_can_undo (SkHistory *self)
{
  g_return_val_if_fail (SK_IS_HISTORY (self), FALSE);

  return !g_queue_is_empty (&self->undo_steps);
}

gboolean
sk_history_get_can_redo (SkHistory *self)
{
  g_return_val_if_fail (SK_IS_HISTORY (self), FALSE);

  return !g_queue_is_empty (&self->redo_steps);
}

/**
 * sk_history_get_undo_label:
 * @self: a #SkHistory
 *
 * Returns: (nullable): what sk_history_undo() would undo, in the user's
 *   language, such as "Move Step"
 */
const char *
sk_history_get_undo_label (SkHistory *self)
{
  Step *step;

  g_return_val_if_fail (SK_IS_HISTORY (self), NULL);

  step = g_queue_peek_head (&self->undo_steps);
  return step != NULL ? step->label : NULL;
}

/**
 * sk_history_get_node_ids:
 * @self: a #SkHistory
 * @redo: %TRUE for the step sk_history_redo() would redo, %FALSE for the
 *   one sk_history_undo() would undo
 *
 * Tells which steps of the workflow that step changes, added or removed,
 * so that the window can show them.
 *
 * Returns: (transfer full): the nodes' identifiers, without repeats; empty
 *   if the step only changed the workflow's own members, or there is none
 */
char **
sk_history_get_node_ids (SkHistory *self,
                         gboolean   redo)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  Step *step;

  g_return_val_if_fail (SK_IS_HISTORY (self), NULL);

  step = g_queue_peek_head (redo ? &self->redo_steps : &self->undo_steps);
  if (step == NULL)
    return g_strv_builder_end (builder);

  for (guint i = 0; i < step->changes->len; i++)
    {
      StoredChange *change = g_ptr_array_index (step->changes, i);

      if (change->id != NULL && g_hash_table_add (seen, change->id))
        g_strv_builder_add (builder, change->id);
    }

  for (guint i = 0; i < step->ops->len; i++)
    {
      Op *op = g_ptr_array_index (step->ops, i);

      if (g_hash_table_add (seen, op->id))
        g_strv_builder_add (builder, op->id);
    }

  return g_strv_builder_end (builder);
}

/**
 * sk_history_get_redo_label:
 * @self: a #SkHistory
 *
 * Returns: (nullable): what sk_history_redo() would redo
 */
const char *
sk_history_get_redo_label (SkHistory *self)
{
  Step *step;

  g_return_val_if_fail (SK_IS_HISTORY (self), NULL);

  step = g_queue_peek_head (&self->redo_steps);
  return step != NULL ? step->label : NULL;
}

/**
 * sk_history_undo:
 * @self: a #SkHistory
 *
 * Records pending changes, then puts the workflow back as it was before the
 * last step: deleted nodes return at their place with their connections,
 * added nodes go. The results of runs are left as they are.
 *
 * Returns: %TRUE if a step was undone; %FALSE if there was none, or a group
 *   is open
 */
gboolean
sk_history_undo (SkHistory *self)
{
  Step *step;

  g_return_val_if_fail (SK_IS_HISTORY (self), FALSE);

  if (self->depth > 0)
    return FALSE;

  close_step (self, NULL);

  step = g_queue_pop_head (&self->undo_steps);
  if (step == NULL)
    return FALSE;

  apply_step (self, step, TRUE);
  g_queue_push_head (&self->redo_steps, step);
  self->can_merge = FALSE;
  check_saved_state (self);
  update_properties (self);

  return TRUE;
}

/**
 * sk_history_redo:
 * @self: a #SkHistory
 *
 * Records pending changes, then makes the last undone step again. A new
 * change forgets the undone steps.
 *
 * Returns: %TRUE if a step was redone; %FALSE if there was none, or a group
 *   is open
 */
gboolean
sk_history_redo (SkHistory *self)
{
  Step *step;

  g_return_val_if_fail (SK_IS_HISTORY (self), FALSE);

  if (self->depth > 0)
    return FALSE;

  close_step (self, NULL);

  step = g_queue_pop_head (&self->redo_steps);
  if (step == NULL)
    return FALSE;

  apply_step (self, step, FALSE);
  g_queue_push_head (&self->undo_steps, step);
  self->can_merge = FALSE;
  check_saved_state (self);
  update_properties (self);

  return TRUE;
}

/**
 * sk_history_clear:
 * @self: a #SkHistory
 *
 * Forgets every step and takes the workflow as it is now as the starting
 * point, as after loading or reverting it.
 */
void
sk_history_clear (SkHistory *self)
{
  g_return_if_fail (SK_IS_HISTORY (self));

  g_clear_handle_id (&self->idle_id, g_source_remove);
  g_queue_clear_full (&self->undo_steps, step_free);
  g_queue_clear_full (&self->redo_steps, step_free);
  g_hash_table_remove_all (self->dirty);
  g_ptr_array_set_size (self->ops, 0);
  g_ptr_array_set_size (self->files, 0);
  self->header_dirty = FALSE;
  self->pending_position = G_MAXUINT;
  self->can_merge = FALSE;
  self->saved_serial = 0;
  self->saved_known = !sk_project_get_modified (self->project);

  take_snapshot (self);
  update_properties (self);
}

/*
 * Sets how soon after the last step a change of the same text must come to
 * join it; 0 turns joining off.
 */
void
_sk_history_set_merge_window_us (SkHistory *self,
                                 gint64     window_us)
{
  g_return_if_fail (SK_IS_HISTORY (self));
  g_return_if_fail (window_us >= 0);

  self->merge_window_us = window_us;
}
