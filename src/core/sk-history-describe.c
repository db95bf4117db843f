/* sk-history-describe.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-history"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-history-private.h"
#include "sk-json.h"

/* What changed between two undoable states of a node, and the label of an
 * undo step, such as “Move Step”, worked out from its changes. */

/* Whether @member has the same value in @a and @b, or is in neither. Either
 * object may be %NULL.
 */
gboolean
_sk_history_member_equal (JsonObject *a,
                          JsonObject *b,
                          const char *member)
{
  JsonNode *node_a = a != NULL ? json_object_get_member (a, member) : NULL;
  JsonNode *node_b = b != NULL ? json_object_get_member (b, member) : NULL;

  if (node_a == NULL || node_b == NULL)
    return node_a == node_b;

  return json_node_equal (node_a, node_b);
}

/* Calls @func for each member that @a or @b has and the other has not, or
 * has with another value, until it returns %FALSE.
 */
static void
foreach_changed_member (JsonObject *a,
                        JsonObject *b,
                        gboolean  (*func) (const char *member,
                                           gpointer    data),
                        gpointer    data)
{
  g_autoptr(GList) members_a = a != NULL ? json_object_get_members (a) : NULL;
  g_autoptr(GList) members_b = b != NULL ? json_object_get_members (b) : NULL;

  for (const GList *l = members_a; l != NULL; l = l->next)
    {
      if (!_sk_history_member_equal (a, b, l->data) && !func (l->data, data))
        return;
    }

  for (const GList *l = members_b; l != NULL; l = l->next)
    {
      if ((a == NULL || !json_object_has_member (a, l->data)) && !func (l->data, data))
        return;
    }
}

typedef struct
{
  const char *first;
  guint       count;
} CountMembers;

static gboolean
count_member_cb (const char *member,
                 gpointer    data)
{
  CountMembers *count = data;

  if (count->count == 0)
    count->first = member;
  count->count++;

  return count->count < 2;
}

/*
 * Counts the members in which @a and @b differ, stopping at two, and
 * returns the first of them in @first (owned by @a or @b).
 */
guint
_sk_history_count_changed_members (JsonObject  *a,
                                   JsonObject  *b,
                                   const char **first)
{
  CountMembers count = { NULL, 0 };

  foreach_changed_member (a, b, count_member_cb, &count);
  if (first != NULL)
    *first = count.first;

  return count.count;
}

typedef struct
{
  guint added;
  guint removed;
  guint edited;

  guint process_edited : 1;
  guint process_renamed_only : 1;
  guint connected : 1;
  guint disconnected : 1;
} Summary;

static gboolean
collect_member_cb (const char *member,
                   gpointer    data)
{
  GHashTable *members = data;

  g_hash_table_add (members, (gpointer) member);
  return TRUE;
}

static gboolean
array_has_string (JsonArray  *array,
                  const char *value)
{
  guint length = array != NULL ? json_array_get_length (array) : 0;

  for (guint i = 0; i < length; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (JSON_NODE_HOLDS_VALUE (element) &&
          json_node_get_value_type (element) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (element), value))
        return TRUE;
    }

  return FALSE;
}

/* Returns whether a text in @from is missing from @to. */
static gboolean
array_lost_any (JsonArray *from,
                JsonArray *to)
{
  guint length = from != NULL ? json_array_get_length (from) : 0;

  for (guint i = 0; i < length; i++)
    {
      JsonNode *element = json_array_get_element (from, i);

      if (JSON_NODE_HOLDS_VALUE (element) &&
          json_node_get_value_type (element) == G_TYPE_STRING &&
          !array_has_string (to, json_node_get_string (element)))
        return TRUE;
    }

  return FALSE;
}

/*
 * Names a step by its @changes, as the Undo menu item shows it.
 */
char *
_sk_history_describe_changes (GPtrArray *changes)
{
  /* Member names, owned by the changes' JSON. */
  g_autoptr(GHashTable) members = g_hash_table_new (g_str_hash, g_str_equal);
  Summary summary = { 0, };

  for (guint i = 0; i < changes->len; i++)
    {
      Change *change = g_ptr_array_index (changes, i);

      if (change->id == NULL)
        {
          const char *first = NULL;
          guint count = _sk_history_count_changed_members (change->before, change->after,
                                                            &first);

          summary.process_edited = TRUE;
          summary.process_renamed_only = count == 1 && g_str_equal (first, "process_name");
        }
      else if (change->before == NULL)
        {
          summary.added++;
        }
      else if (change->after == NULL)
        {
          summary.removed++;
        }
      else
        {
          summary.edited++;
          foreach_changed_member (change->before, change->after, collect_member_cb, members);

          if (!_sk_history_member_equal (change->before, change->after, "priors"))
            {
              JsonArray *old_priors = sk_json_get_array (change->before, "priors");
              JsonArray *new_priors = sk_json_get_array (change->after, "priors");

              if (array_lost_any (new_priors, old_priors))
                summary.connected = TRUE;
              if (array_lost_any (old_priors, new_priors))
                summary.disconnected = TRUE;
            }
        }
    }

  if (summary.added > 0 && summary.removed == 0)
    return g_strdup (summary.added == 1 ? _("Add Step") : _("Add Steps"));

  if (summary.removed > 0 && summary.added == 0)
    return g_strdup (summary.removed == 1 ? _("Delete Step") : _("Delete Steps"));

  if (summary.added > 0 || summary.process_edited)
    {
      if (summary.process_renamed_only && summary.edited == 0 && summary.added == 0)
        return g_strdup (_("Rename Workflow"));

      return g_strdup (_("Edit Workflow"));
    }

  if (summary.edited == 0)
    return g_strdup (_("Edit Workflow"));

  if (g_hash_table_size (members) == 1)
    {
      if (g_hash_table_contains (members, "priors"))
        {
          if (summary.connected && !summary.disconnected)
            return g_strdup (_("Connect Steps"));
          if (summary.disconnected && !summary.connected)
            return g_strdup (_("Disconnect Steps"));
          return g_strdup (_("Change Connections"));
        }

      if (g_hash_table_contains (members, "skele"))
        return g_strdup (summary.edited == 1 ? _("Move Step") : _("Move Steps"));

      if (summary.edited == 1)
        {
          if (g_hash_table_contains (members, "name"))
            return g_strdup (_("Rename Step"));
          if (g_hash_table_contains (members, "input"))
            return g_strdup (_("Edit Task"));
          if (g_hash_table_contains (members, "description"))
            return g_strdup (_("Edit Description"));
        }
    }

  return g_strdup (summary.edited == 1 ? _("Edit Step") : _("Edit Steps"));
}
