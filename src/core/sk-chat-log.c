/* sk-chat-log.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-chat-log"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sk-chat-log.h"
#include "sk-json.h"
#include "sk-step-folder.h"

/* The conversation with the chat agent, kept in the workflow's bookkeeping
 * folder (never in process.json, which other tools read). A file that
 * cannot be read is put aside rather than written over, so that a
 * conversation is never lost without the user being told. */

#define CHAT_LOG_VERSION 1

/* An older turn that does not fit whole in the prompt keeps at most this
 * many characters of its first line. */
#define SHORT_TURN_CHARS 80

/* How many names "chat.json.broken", "chat.json.broken-2" … are tried. */
#define MAX_ASIDE_NAMES 100

struct _SkChatLog
{
  GFile     *file;
  GPtrArray *turns;  /* SkChatTurn */
  char      *warning;
  /* The file could be neither read nor put aside: saving would lose it. */
  guint      blocked : 1;
};

static const char * const roles[] = { "user", "assistant", "tool", NULL };

/**
 * sk_chat_turn_free:
 * @turn: (transfer full): a turn
 */
void
sk_chat_turn_free (SkChatTurn *turn)
{
  if (turn == NULL)
    return;

  g_free (turn->role);
  g_free (turn->text);
  g_free (turn);
}

static SkChatTurn *
turn_new (const char *role,
          const char *text,
          guint64     tokens_in,
          guint64     tokens_out)
{
  SkChatTurn *turn = g_new0 (SkChatTurn, 1);

  turn->role = g_strdup (role);
  turn->text = g_utf8_make_valid (text != NULL ? text : "", -1);
  turn->tokens_in = tokens_in;
  turn->tokens_out = tokens_out;

  return turn;
}

/**
 * sk_chat_log_new:
 * @folder: a workflow folder
 *
 * Returns: (transfer full): an empty conversation for the workflow in
 *   @folder, not yet saved
 */
SkChatLog *
sk_chat_log_new (GFile *folder)
{
  SkChatLog *log;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);

  log = g_new0 (SkChatLog, 1);
  log->file = sk_step_folder_get_chat_log (folder);
  log->turns = g_ptr_array_new_with_free_func ((GDestroyNotify) sk_chat_turn_free);

  return log;
}

/**
 * sk_chat_log_set_folder:
 * @log: a conversation
 * @folder: the workflow's folder now, after it was saved elsewhere
 *
 * Makes the next save go to @folder's `.skele/chat.json`.
 */
void
sk_chat_log_set_folder (SkChatLog *log,
                        GFile     *folder)
{
  g_return_if_fail (log != NULL);
  g_return_if_fail (G_IS_FILE (folder));

  g_clear_object (&log->file);
  log->file = sk_step_folder_get_chat_log (folder);
  log->blocked = FALSE;
}

/**
 * sk_chat_log_free:
 * @log: (transfer full): a conversation
 */
void
sk_chat_log_free (SkChatLog *log)
{
  if (log == NULL)
    return;

  g_clear_object (&log->file);
  g_clear_pointer (&log->turns, g_ptr_array_unref);
  g_free (log->warning);
  g_free (log);
}

/* Moves the unreadable file to the first free name beside it. */
static GFile *
put_aside (GFile   *file,
           GError **error)
{
  g_autofree char *basename = g_file_get_basename (file);
  g_autoptr(GFile) parent = g_file_get_parent (file);

  for (guint i = 1; i <= MAX_ASIDE_NAMES; i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GFile) aside = NULL;
      g_autoptr(GError) local_error = NULL;

      name = i == 1 ? g_strconcat (basename, ".broken", NULL)
                    : g_strdup_printf ("%s.broken-%u", basename, i);
      aside = g_file_get_child (parent, name);
      if (g_file_move (file, aside, G_FILE_COPY_NOFOLLOW_SYMLINKS, NULL, NULL, NULL, &local_error))
        return g_steal_pointer (&aside);
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }

  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       _("Too many unreadable conversations are kept beside it; delete the old ones"));
  return NULL;
}

static void
set_unreadable (SkChatLog  *log,
                const char *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) aside = NULL;
  g_autofree char *display = g_file_get_parse_name (log->file);

  aside = put_aside (log->file, &error);
  if (aside != NULL)
    {
      g_autofree char *aside_name = g_file_get_basename (aside);

      log->warning = g_strdup_printf (_("The conversation in “%s” could not be read (%s), so a new one was started. "
                                        "The old file was kept as “%s”."),
                                      display, reason, aside_name);
      return;
    }

  log->blocked = TRUE;
  log->warning = g_strdup_printf (_("The conversation in “%s” could not be read (%s) nor put aside (%s). "
                                    "It will not be saved until you move or delete that file."),
                                  display, reason, error->message);
}

static gboolean
read_turns (SkChatLog  *log,
            JsonObject *object)
{
  JsonArray *turns = sk_json_get_array (object, "turns");
  guint skipped = 0;

  if (turns == NULL)
    return FALSE;

  for (guint i = 0; i < json_array_get_length (turns); i++)
    {
      JsonNode *element = json_array_get_element (turns, i);
      JsonObject *turn;
      const char *role;
      const char *text;
      gint64 tokens_in = 0;
      gint64 tokens_out = 0;

      turn = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      role = sk_json_get_string (turn, "role");
      text = sk_json_get_string (turn, "text");
      if (role == NULL || text == NULL || !g_strv_contains (roles, role))
        {
          skipped++;
          continue;
        }

      sk_json_get_int (turn, "tokens_in", &tokens_in);
      sk_json_get_int (turn, "tokens_out", &tokens_out);
      g_ptr_array_add (log->turns, turn_new (role, text, MAX (tokens_in, 0), MAX (tokens_out, 0)));
    }

  if (skipped > 0)
    {
      g_autofree char *display = g_file_get_parse_name (log->file);

      log->warning = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                   "One turn of the conversation in “%2$s” could not be read and was left out.",
                                                   "%1$u turns of the conversation in “%2$s” could not be read and were left out.",
                                                   skipped),
                                      skipped, display);
    }

  return TRUE;
}

/**
 * sk_chat_log_load:
 * @folder: a workflow folder
 * @error: return location for a #GError
 *
 * Reads the conversation of the workflow in @folder. A workflow without one
 * has an empty conversation. A file that is not a conversation gives an
 * empty one too, with a warning for the user (see
 * sk_chat_log_get_warning()); the file is first put aside beside it, so
 * that saving never writes over it. Text that is not valid UTF-8 is
 * repaired.
 *
 * Returns: (transfer full): the conversation, or %NULL with @error set when
 *   the file exists but cannot be read at all
 */
SkChatLog *
sk_chat_log_load (GFile   *folder,
                  GError **error)
{
  g_autoptr(SkChatLog) log = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) repaired = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (G_IS_FILE (folder), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  log = sk_chat_log_new (folder);
  path = g_file_get_path (log->file);
  if (path == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("The conversation can only be kept in a local folder"));
      return NULL;
    }

  object = sk_json_read_object (path, &local_error);
  if (object == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&log);

      /* A file that cannot be opened (its permissions, a full disk) is
       * the caller's to report; one that opens but is not a conversation
       * is put aside. */
      if (local_error->domain == G_FILE_ERROR &&
          !g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_INVAL))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      set_unreadable (log, local_error->message);
      return g_steal_pointer (&log);
    }

  root = json_node_init_object (json_node_alloc (), object);
  if ((repaired = sk_json_repair_utf8 (root, NULL)) != NULL)
    {
      g_clear_pointer (&object, json_object_unref);
      object = json_object_ref (json_node_get_object (repaired));
    }

  if (!read_turns (log, object))
    set_unreadable (log, _("it holds no list of turns"));

  return g_steal_pointer (&log);
}

/**
 * sk_chat_log_save:
 * @log: a conversation
 * @error: return location for a #GError
 *
 * Writes the conversation atomically, creating the workflow's bookkeeping
 * folder when needed. A file that could not be read nor put aside when the
 * conversation was loaded is never written over.
 *
 * Returns: %TRUE when the conversation was saved
 */
gboolean
sk_chat_log_save (SkChatLog  *log,
                  GError    **error)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *parent = NULL;

  g_return_val_if_fail (log != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_file_get_path (log->file);
  if (log->blocked || path == NULL)
    {
      g_autofree char *display = g_file_get_parse_name (log->file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("The conversation was not saved, so as not to write over “%s”, which could not be read. "
                     "Move or delete that file, then try again."),
                   display);
      return FALSE;
    }

  parent = g_path_get_dirname (path);
  if (g_mkdir_with_parents (parent, 0755) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not create the folder “%s”: %s"), parent, g_strerror (saved_errno));
      return FALSE;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, CHAT_LOG_VERSION);
  json_builder_set_member_name (builder, "turns");
  json_builder_begin_array (builder);
  for (guint i = 0; i < log->turns->len; i++)
    {
      const SkChatTurn *turn = g_ptr_array_index (log->turns, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, turn->role);
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, turn->text);
      json_builder_set_member_name (builder, "tokens_in");
      json_builder_add_int_value (builder, (gint64) MIN (turn->tokens_in, (guint64) G_MAXINT64));
      json_builder_set_member_name (builder, "tokens_out");
      json_builder_add_int_value (builder, (gint64) MIN (turn->tokens_out, (guint64) G_MAXINT64));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  return sk_json_write_atomic (path, root, TRUE, error);
}

/**
 * sk_chat_log_append:
 * @log: a conversation
 * @role: `user`, `assistant` or `tool`
 * @text: what was said; bytes that are not UTF-8 are replaced
 * @tokens_in: the prompt tokens the turn cost
 * @tokens_out: the completion tokens the turn cost
 *
 * Adds a turn at the end of the conversation; sk_chat_log_save() writes it.
 */
void
sk_chat_log_append (SkChatLog  *log,
                    const char *role,
                    const char *text,
                    guint64     tokens_in,
                    guint64     tokens_out)
{
  g_return_if_fail (log != NULL);
  g_return_if_fail (role != NULL && g_strv_contains (roles, role));

  g_ptr_array_add (log->turns, turn_new (role, text, tokens_in, tokens_out));
}

/**
 * sk_chat_log_get_file:
 * @log: a conversation
 *
 * Returns: (transfer none): where the conversation is kept
 */
GFile *
sk_chat_log_get_file (SkChatLog *log)
{
  g_return_val_if_fail (log != NULL, NULL);

  return log->file;
}

/**
 * sk_chat_log_get_warning:
 * @log: a conversation
 *
 * Returns: (nullable): what went wrong when the conversation was loaded,
 *   in words for the user, or %NULL
 */
const char *
sk_chat_log_get_warning (SkChatLog *log)
{
  g_return_val_if_fail (log != NULL, NULL);

  return log->warning;
}

/**
 * sk_chat_log_get_n_turns:
 * @log: a conversation
 *
 * Returns: how many turns it has
 */
guint
sk_chat_log_get_n_turns (SkChatLog *log)
{
  g_return_val_if_fail (log != NULL, 0);

  return log->turns->len;
}

/**
 * sk_chat_log_get_turn:
 * @log: a conversation
 * @index: a turn's position, the oldest first
 *
 * Returns: (transfer none): the turn
 */
const SkChatTurn *
sk_chat_log_get_turn (SkChatLog *log,
                      guint      index)
{
  g_return_val_if_fail (log != NULL, NULL);
  g_return_val_if_fail (index < log->turns->len, NULL);

  return g_ptr_array_index (log->turns, index);
}

/**
 * sk_chat_log_get_tokens:
 * @log: a conversation
 * @tokens_in: (out) (optional): the prompt tokens of every turn
 * @tokens_out: (out) (optional): the completion tokens of every turn
 */
void
sk_chat_log_get_tokens (SkChatLog *log,
                        guint64   *tokens_in,
                        guint64   *tokens_out)
{
  guint64 in = 0;
  guint64 out = 0;

  g_return_if_fail (log != NULL);

  for (guint i = 0; i < log->turns->len; i++)
    {
      const SkChatTurn *turn = g_ptr_array_index (log->turns, i);

      in += turn->tokens_in;
      out += turn->tokens_out;
    }

  if (tokens_in != NULL)
    *tokens_in = in;
  if (tokens_out != NULL)
    *tokens_out = out;
}

/* The first line of @text, cut, with an ellipsis: what is left of an older
 * turn that does not fit whole. */
static char *
shorten (const char *text)
{
  g_autofree char *line = NULL;
  const char *end = strpbrk (text, "\r\n");

  line = end != NULL ? g_strndup (text, end - text) : g_strdup (text);
  if (g_utf8_strlen (line, -1) > SHORT_TURN_CHARS)
    {
      char *cut = g_utf8_substring (line, 0, SHORT_TURN_CHARS);

      g_free (line);
      line = cut;
    }
  g_strchomp (line);

  return g_strconcat (line, "…", NULL);
}

/**
 * sk_chat_log_for_prompt:
 * @log: a conversation
 * @budget_chars: how many characters of text the turns may hold together
 *
 * The turns to send to the model, oldest first. From the newest back, a
 * turn is kept whole while it fits in @budget_chars, then shortened to its
 * first line and an ellipsis while that fits; the turns older than the
 * first that fits in neither form are dropped. The latest message of the
 * user is always kept whole, even when it alone is over the budget.
 *
 * Returns: (transfer container) (element-type SkChatTurn): copies of the
 *   turns to send
 */
GPtrArray *
sk_chat_log_for_prompt (SkChatLog *log,
                        gsize      budget_chars)
{
  g_autoptr(GPtrArray) newest_first = NULL;
  GPtrArray *result;
  gsize left = budget_chars;
  gboolean dropping = FALSE;
  guint last_user = G_MAXUINT;

  g_return_val_if_fail (log != NULL, NULL);

  for (guint i = log->turns->len; i > 0; i--)
    {
      const SkChatTurn *turn = g_ptr_array_index (log->turns, i - 1);

      if (g_str_equal (turn->role, "user"))
        {
          last_user = i - 1;
          left -= MIN (left, (gsize) g_utf8_strlen (turn->text, -1));
          break;
        }
    }

  newest_first = g_ptr_array_new ();
  for (guint i = log->turns->len; i > 0; i--)
    {
      const SkChatTurn *turn = g_ptr_array_index (log->turns, i - 1);
      g_autofree char *shortened = NULL;
      gsize length;

      if (i - 1 == last_user)
        {
          g_ptr_array_add (newest_first, turn_new (turn->role, turn->text,
                                                   turn->tokens_in, turn->tokens_out));
          continue;
        }
      if (dropping)
        continue;

      length = g_utf8_strlen (turn->text, -1);
      if (length <= left)
        {
          left -= length;
          g_ptr_array_add (newest_first, turn_new (turn->role, turn->text,
                                                   turn->tokens_in, turn->tokens_out));
          continue;
        }

      shortened = shorten (turn->text);
      length = g_utf8_strlen (shortened, -1);
      if (length <= left)
        {
          left -= length;
          g_ptr_array_add (newest_first, turn_new (turn->role, shortened,
                                                   turn->tokens_in, turn->tokens_out));
          continue;
        }

      /* The conversation stays one piece: nothing older than a gap. */
      dropping = TRUE;
    }

  result = g_ptr_array_new_full (newest_first->len, (GDestroyNotify) sk_chat_turn_free);
  for (guint i = newest_first->len; i > 0; i--)
    g_ptr_array_add (result, g_ptr_array_index (newest_first, i - 1));

  return result;
}
