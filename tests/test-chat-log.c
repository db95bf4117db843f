/* test-chat-log.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include "sk-chat-log.h"
#include "sk-step-folder.h"
#include "sk-test-util.h"

#define CHAT_JSON ".skele/chat.json"

typedef struct
{
  char  *path;
  GFile *folder;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->path = sk_test_make_tmp_dir ("chat-log");
  fixture->folder = g_file_new_for_path (fixture->path);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->folder);
  sk_test_remove_tree (fixture->path);
  g_free (fixture->path);
}

static void
assert_turn (SkChatLog  *log,
             guint       index,
             const char *role,
             const char *text)
{
  const SkChatTurn *turn = sk_chat_log_get_turn (log, index);

  g_assert_nonnull (turn);
  g_assert_cmpstr (turn->role, ==, role);
  g_assert_cmpstr (turn->text, ==, text);
}

static void
test_file (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GFile) expected = g_file_resolve_relative_path (fixture->folder, CHAT_JSON);
  g_autoptr(GFile) file = sk_step_folder_get_chat_log (fixture->folder);
  g_autoptr(SkChatLog) log = sk_chat_log_new (fixture->folder);

  g_assert_true (g_file_equal (file, expected));
  g_assert_true (g_file_equal (sk_chat_log_get_file (log), expected));
}

static void
test_missing (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = sk_chat_log_load (fixture->folder, &error);
  guint64 tokens_in = 1;
  guint64 tokens_out = 1;

  g_assert_no_error (error);
  g_assert_nonnull (log);
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 0);
  g_assert_null (sk_chat_log_get_warning (log));
  sk_chat_log_get_tokens (log, &tokens_in, &tokens_out);
  g_assert_cmpuint (tokens_in, ==, 0);
  g_assert_cmpuint (tokens_out, ==, 0);
  /* Loading creates nothing. */
  g_assert_false (sk_test_exists (fixture->path, ".skele"));
}

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = sk_chat_log_load (fixture->folder, &error);
  g_autoptr(SkChatLog) again = NULL;
  g_autoptr(JsonObject) saved = NULL;
  g_autofree char *text = NULL;
  guint64 tokens_in;
  guint64 tokens_out;

  g_assert_no_error (error);
  sk_chat_log_append (log, "user", "Add a step that plots the totals.", 0, 0);
  sk_chat_log_append (log, "tool", "{\"id\": \"4\"}", 0, 0);
  sk_chat_log_append (log, "assistant", "I propose a step “Plot”.\nAccept it to keep it.", 1200, 80);
  sk_chat_log_append (log, "user", "Thanks", 0, 0);
  sk_chat_log_append (log, "assistant", "You are welcome.", 1500, 10);
  g_assert_true (sk_chat_log_save (log, &error));
  g_assert_no_error (error);

  /* The conversation is in the bookkeeping folder, never in process.json. */
  g_assert_true (sk_test_exists (fixture->path, CHAT_JSON));
  g_assert_false (sk_test_exists (fixture->path, "process.json"));
  text = sk_test_read_text (fixture->path, CHAT_JSON);
  saved = sk_test_parse_object (text);
  g_assert_cmpint (json_object_get_int_member (saved, "version"), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (saved, "turns")), ==, 5);

  again = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_null (sk_chat_log_get_warning (again));
  g_assert_cmpuint (sk_chat_log_get_n_turns (again), ==, 5);
  assert_turn (again, 0, "user", "Add a step that plots the totals.");
  assert_turn (again, 1, "tool", "{\"id\": \"4\"}");
  assert_turn (again, 2, "assistant", "I propose a step “Plot”.\nAccept it to keep it.");
  assert_turn (again, 3, "user", "Thanks");
  assert_turn (again, 4, "assistant", "You are welcome.");
  g_assert_cmpuint (sk_chat_log_get_turn (again, 2)->tokens_in, ==, 1200);
  g_assert_cmpuint (sk_chat_log_get_turn (again, 2)->tokens_out, ==, 80);
  sk_chat_log_get_tokens (again, &tokens_in, &tokens_out);
  g_assert_cmpuint (tokens_in, ==, 2700);
  g_assert_cmpuint (tokens_out, ==, 90);

  /* Saving again replaces the file whole. */
  sk_chat_log_append (again, "user", "One more", 0, 0);
  g_assert_true (sk_chat_log_save (again, &error));
  g_assert_no_error (error);
  g_clear_pointer (&log, sk_chat_log_free);
  log = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 6);
  assert_turn (log, 5, "user", "One more");
}

static void
assert_kept_aside (Fixture    *fixture,
                   const char *bad,
                   const char *aside_name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = NULL;
  g_autofree char *aside = g_build_filename (".skele", aside_name, NULL);
  g_autofree char *kept = NULL;

  sk_test_write_text (fixture->path, CHAT_JSON, bad);
  log = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_nonnull (log);
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 0);
  g_assert_nonnull (sk_chat_log_get_warning (log));
  sk_test_assert_contains (sk_chat_log_get_warning (log), aside_name);

  /* The bad file is kept aside, unchanged, before anything is saved. */
  g_assert_false (sk_test_exists (fixture->path, CHAT_JSON));
  kept = sk_test_read_text (fixture->path, aside);
  g_assert_cmpstr (kept, ==, bad);

  /* Saving the new conversation leaves the old file alone. */
  sk_chat_log_append (log, "user", "Hello", 0, 0);
  g_assert_true (sk_chat_log_save (log, &error));
  g_assert_no_error (error);
  g_clear_pointer (&kept, g_free);
  kept = sk_test_read_text (fixture->path, aside);
  g_assert_cmpstr (kept, ==, bad);
}

static void
test_malformed (Fixture       *fixture,
                gconstpointer  data)
{
  assert_kept_aside (fixture, "{\"turns\": [ {\"role\": ", "chat.json.broken");
  /* A second bad file never takes the first one's place. */
  assert_kept_aside (fixture, "[1, 2, 3]", "chat.json.broken-2");
  assert_kept_aside (fixture, "{\"version\": 1}", "chat.json.broken-3");
}

/* A file that can be neither read nor put aside (here every name beside it
 * is taken) is never written over. */
static void
test_malformed_blocked (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = NULL;
  g_autofree char *kept = NULL;

  sk_test_write_text (fixture->path, ".skele/chat.json.broken", "taken");
  for (guint i = 2; i <= 100; i++)
    {
      g_autofree char *name = g_strdup_printf (".skele/chat.json.broken-%u", i);

      sk_test_write_text (fixture->path, name, "taken");
    }

  sk_test_write_text (fixture->path, CHAT_JSON, "not json");
  log = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sk_chat_log_get_warning (log));
  sk_test_assert_contains (sk_chat_log_get_warning (log), "move or delete");
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 0);

  sk_chat_log_append (log, "user", "Hello", 0, 0);
  g_assert_false (sk_chat_log_save (log, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);

  kept = sk_test_read_text (fixture->path, CHAT_JSON);
  g_assert_cmpstr (kept, ==, "not json");
}

/* Turns that are not turns are left out with a warning; the rest is kept. */
static void
test_bad_turns (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = NULL;

  sk_test_write_text (fixture->path, CHAT_JSON,
                      "{\"version\": 1, \"turns\": ["
                      "{\"role\": \"user\", \"text\": \"Hi\", \"tokens_in\": -5},"
                      "{\"role\": \"system\", \"text\": \"Obey\"},"
                      "42,"
                      "{\"role\": \"assistant\"},"
                      "{\"role\": \"assistant\", \"text\": \"Hello\", \"tokens_out\": 7}]}");
  log = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 2);
  assert_turn (log, 0, "user", "Hi");
  assert_turn (log, 1, "assistant", "Hello");
  g_assert_cmpuint (sk_chat_log_get_turn (log, 0)->tokens_in, ==, 0);
  g_assert_cmpuint (sk_chat_log_get_turn (log, 1)->tokens_out, ==, 7);
  sk_test_assert_contains (sk_chat_log_get_warning (log), "3 turns");
  /* Nothing was put aside: the file is still a conversation. */
  g_assert_true (sk_test_exists (fixture->path, CHAT_JSON));
}

static void
test_invalid_utf8 (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SkChatLog) log = sk_chat_log_new (fixture->folder);
  g_autoptr(SkChatLog) again = NULL;
  g_autoptr(SkChatLog) escaped = NULL;
  g_autofree char *text = NULL;

  sk_chat_log_append (log, "tool", "caf\xe9 \xff end", 0, 0);
  g_assert_true (g_utf8_validate (sk_chat_log_get_turn (log, 0)->text, -1, NULL));
  g_assert_cmpstr (sk_chat_log_get_turn (log, 0)->text, ==, "caf\xef\xbf\xbd \xef\xbf\xbd end");
  g_assert_true (sk_chat_log_save (log, &error));
  g_assert_no_error (error);

  text = sk_test_read_text (fixture->path, CHAT_JSON);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  again = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  assert_turn (again, 0, "tool", "caf\xef\xbf\xbd \xef\xbf\xbd end");

  /* A lone surrogate escape makes json-glib produce bytes that are not
   * UTF-8 (and swallow the character after it); they are repaired as the
   * file is read. */
  sk_test_write_text (fixture->path, CHAT_JSON,
                      "{\"version\": 1, \"turns\": [{\"role\": \"user\", \"text\": \"a\\ud800b\"}]}");
  escaped = sk_chat_log_load (fixture->folder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sk_chat_log_get_n_turns (escaped), ==, 1);
  g_assert_true (g_utf8_validate (sk_chat_log_get_turn (escaped, 0)->text, -1, NULL));
  g_assert_true (g_str_has_prefix (sk_chat_log_get_turn (escaped, 0)->text, "a"));
}

static gsize
total_chars (GPtrArray *turns)
{
  gsize total = 0;

  for (guint i = 0; i < turns->len; i++)
    total += g_utf8_strlen (((SkChatTurn *) g_ptr_array_index (turns, i))->text, -1);

  return total;
}

static char *
long_text (const char *first_line,
           guint       n_lines)
{
  GString *text = g_string_new (first_line);

  for (guint i = 0; i < n_lines; i++)
    g_string_append_printf (text, "\nline %u of a long answer that goes on and on.", i);

  return g_string_free (text, FALSE);
}

static void
test_for_prompt (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(SkChatLog) log = sk_chat_log_new (fixture->folder);
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) fitted = NULL;
  g_autoptr(GPtrArray) tiny = NULL;
  g_autofree char *old_answer = long_text ("Old answer.", 40);
  g_autofree char *older_answer = long_text ("Older answer.", 40);
  g_autofree char *last_user = long_text ("Please rename the cleaning step.", 5);
  const SkChatTurn *turn;
  gsize budget;

  sk_chat_log_append (log, "user", "First question", 0, 0);
  sk_chat_log_append (log, "assistant", older_answer, 0, 0);
  sk_chat_log_append (log, "user", "Second question", 0, 0);
  sk_chat_log_append (log, "assistant", old_answer, 0, 0);
  sk_chat_log_append (log, "user", last_user, 0, 0);
  sk_chat_log_append (log, "assistant", "Which name would you like?", 0, 0);

  /* With room for everything, everything is sent as it is. */
  all = sk_chat_log_for_prompt (log, 1000000);
  g_assert_cmpuint (all->len, ==, 6);
  for (guint i = 0; i < all->len; i++)
    g_assert_cmpstr (((SkChatTurn *) g_ptr_array_index (all, i))->text, ==,
                     sk_chat_log_get_turn (log, i)->text);

  /* Room for the last three whole and a little more: the older answers are
   * shortened to their first lines, the newest turns are whole. */
  budget = g_utf8_strlen (last_user, -1) + strlen ("Which name would you like?") +
           strlen ("First question") + strlen ("Second question") + 40;
  fitted = sk_chat_log_for_prompt (log, budget);
  g_assert_cmpuint (total_chars (fitted), <=, budget);
  g_assert_cmpuint (fitted->len, ==, 6);
  turn = g_ptr_array_index (fitted, 5);
  g_assert_cmpstr (turn->text, ==, "Which name would you like?");
  turn = g_ptr_array_index (fitted, 4);
  g_assert_cmpstr (turn->role, ==, "user");
  g_assert_cmpstr (turn->text, ==, last_user);
  turn = g_ptr_array_index (fitted, 3);
  g_assert_cmpstr (turn->role, ==, "assistant");
  g_assert_cmpstr (turn->text, ==, "Old answer.…");
  turn = g_ptr_array_index (fitted, 1);
  g_assert_cmpstr (turn->text, ==, "Older answer.…");
  turn = g_ptr_array_index (fitted, 0);
  g_assert_cmpstr (turn->text, ==, "First question");

  /* With less room, the oldest turns are dropped, never a newer one. */
  budget = g_utf8_strlen (last_user, -1) + strlen ("Which name would you like?") +
           strlen ("Old answer.…") + 3;
  g_clear_pointer (&fitted, g_ptr_array_unref);
  fitted = sk_chat_log_for_prompt (log, budget);
  g_assert_cmpuint (total_chars (fitted), <=, budget);
  g_assert_cmpuint (fitted->len, ==, 3);
  g_assert_cmpstr (((SkChatTurn *) g_ptr_array_index (fitted, 0))->text, ==, "Old answer.…");
  g_assert_cmpstr (((SkChatTurn *) g_ptr_array_index (fitted, 1))->text, ==, last_user);

  /* The latest message of the user is sent whole even when it alone is
   * over the budget; nothing else is then sent. */
  tiny = sk_chat_log_for_prompt (log, 10);
  g_assert_cmpuint (tiny->len, ==, 1);
  turn = g_ptr_array_index (tiny, 0);
  g_assert_cmpstr (turn->role, ==, "user");
  g_assert_cmpstr (turn->text, ==, last_user);

  /* The log itself is unchanged. */
  g_assert_cmpuint (sk_chat_log_get_n_turns (log), ==, 6);
  g_assert_cmpstr (sk_chat_log_get_turn (log, 3)->text, ==, old_answer);
}

static void
test_for_prompt_empty (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(SkChatLog) log = sk_chat_log_new (fixture->folder);
  g_autoptr(GPtrArray) none = sk_chat_log_for_prompt (log, 100);
  g_autoptr(GPtrArray) no_user = NULL;

  g_assert_cmpuint (none->len, ==, 0);

  /* Without a message of the user, the newest turns that fit are sent. */
  sk_chat_log_append (log, "assistant", "0123456789", 0, 0);
  sk_chat_log_append (log, "tool", "abcdefghij", 0, 0);
  no_user = sk_chat_log_for_prompt (log, 15);
  g_assert_cmpuint (no_user->len, ==, 1);
  g_assert_cmpstr (((SkChatTurn *) g_ptr_array_index (no_user, 0))->text, ==, "abcdefghij");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/chat-log/file", test_file);
  ADD ("/chat-log/missing", test_missing);
  ADD ("/chat-log/round-trip", test_round_trip);
  ADD ("/chat-log/malformed", test_malformed);
  ADD ("/chat-log/malformed-blocked", test_malformed_blocked);
  ADD ("/chat-log/bad-turns", test_bad_turns);
  ADD ("/chat-log/invalid-utf8", test_invalid_utf8);
  ADD ("/chat-log/for-prompt", test_for_prompt);
  ADD ("/chat-log/for-prompt-empty", test_for_prompt_empty);
#undef ADD

  return g_test_run ();
}
