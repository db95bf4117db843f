/* sk-chat-pane.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chat beside the canvas: the conversation of the open workflow, the
 * model's answer as it arrives with its tool activity as quiet lines, and
 * the pending proposal with a switch per step, Accept and Reject. The pane
 * only shows and asks; the session does the work, and the window draws the
 * proposal on the canvas.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sk-canvas-private.h"
#include "sk-chat-pane.h"

struct _SkChatPane
{
  GtkWidget       parent_instance;

  SkChatSession  *session;
  SkCanvas       *canvas;
  GCancellable   *cancellable;
  gboolean        draft_mode;

  /* The turn under way: the person's message is shown at once; the
   * answer's text and the activity lines grow below it. */
  GtkWidget      *live_row;
  GtkLabel       *live_text;
  GtkWidget      *live_activity;
  GtkWidget      *live_transient;
  GString        *streamed;
  /* The tokens of the turn under way, not yet in the conversation. */
  guint64         turn_in;
  guint64         turn_out;
  char           *last_message;
  gboolean        arranging;

  /* Template widgets */
  GtkLabel       *tokens_label;
  GtkLabel       *warning_label;
  GtkScrolledWindow *scroller;
  GtkBox         *messages;
  GtkWidget      *welcome;
  GtkLabel       *welcome_title;
  GtkLabel       *welcome_text;
  GtkRevealer    *proposal_revealer;
  GtkLabel       *proposal_title;
  GtkListBox     *proposal_list;
  GtkLabel       *conflict_label;
  GtkButton      *accept_button;
  GtkButton      *reject_button;
  GtkTextView    *entry_view;
  GtkLabel       *placeholder_label;
  GtkButton      *send_button;
  GtkButton      *stop_button;
};

G_DEFINE_FINAL_TYPE (SkChatPane, sk_chat_pane, GTK_TYPE_WIDGET)

enum {
  PROPOSAL_CHANGED,
  PROPOSAL_ACCEPTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void update_proposal (SkChatPane *self);

/* Messages ------------------------------------------------------------------ */

static gboolean
scroll_to_end_cb (gpointer user_data)
{
  SkChatPane *self = user_data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

/* After the new row is allocated, so that the end is where it will be. */
static void
scroll_to_end (SkChatPane *self)
{
  g_timeout_add_full (G_PRIORITY_LOW, 30, scroll_to_end_cb, g_object_ref (self), NULL);
}

static void
append_row (SkChatPane *self,
            GtkWidget  *row)
{
  gtk_widget_set_visible (self->welcome, FALSE);
  gtk_box_append (self->messages, row);
  scroll_to_end (self);
}

static GtkWidget *
make_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);

  return label;
}

static GtkWidget *
make_user_row (const char *text)
{
  GtkWidget *label = make_label (text, "chat-user");

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_halign (label, GTK_ALIGN_END);
  gtk_widget_set_margin_start (label, 36);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Your message"), -1);
  return label;
}

static GtkWidget *
make_note_row (const char *text,
               const char *css_class)
{
  GtkWidget *label = make_label (text, "chat-note");

  gtk_widget_add_css_class (label, "caption");
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  else
    gtk_widget_add_css_class (label, "dim-label");

  return label;
}

static char *
format_tokens (guint64 tokens_in,
               guint64 tokens_out)
{
  g_autofree char *in = g_strdup_printf ("%" G_GUINT64_FORMAT, tokens_in);
  g_autofree char *out = g_strdup_printf ("%" G_GUINT64_FORMAT, tokens_out);

  /* Translators: the tokens of a chat answer, read and written. */
  return g_strdup_printf (_("%s tokens read, %s written"), in, out);
}

/* Inline Markdown of one line as Pango markup: `code`, **strong**,
 * *emphasis* and [links](url). Anything else stays as written. */
static void
append_inline_markup (GString    *out,
                      const char *line)
{
  const char *p = line;
  gboolean strong = FALSE;
  gboolean emphasis = FALSE;

  while (*p != '\0')
    {
      const char *end;

      if (*p == '`' && (end = strchr (p + 1, '`')) != NULL)
        {
          g_autofree char *code = g_markup_escape_text (p + 1, end - p - 1);

          g_string_append_printf (out, "<tt>%s</tt>", code);
          p = end + 1;
        }
      else if (p[0] == '*' && p[1] == '*' && (strong || strstr (p + 2, "**") != NULL))
        {
          g_string_append (out, strong ? "</b>" : "<b>");
          strong = !strong;
          p += 2;
        }
      else if ((*p == '*' || *p == '_') && (emphasis || (p[1] != ' ' && p[1] != '\0' && strchr (p + 1, *p) != NULL)) &&
               (*p == '*' || p == line || !g_ascii_isalnum (p[-1])))
        {
          g_string_append (out, emphasis ? "</i>" : "<i>");
          emphasis = !emphasis;
          p++;
        }
      else if (*p == '[' && (end = strstr (p, "](")) != NULL && strchr (end + 2, ')') != NULL &&
               memchr (p, '\n', end - p) == NULL)
        {
          const char *close = strchr (end + 2, ')');
          g_autofree char *label = g_markup_escape_text (p + 1, end - p - 1);
          g_autofree char *href = g_markup_escape_text (end + 2, close - end - 2);

          g_string_append_printf (out, "<a href=\"%s\">%s</a>", href, label);
          p = close + 1;
        }
      else
        {
          const char *next = g_utf8_next_char (p);
          g_autofree char *text = g_markup_escape_text (p, next - p);

          g_string_append (out, text);
          p = next;
        }
    }

  if (emphasis)
    g_string_append (out, "</i>");
  if (strong)
    g_string_append (out, "</b>");
}

/* The model's Markdown, as a label can show it: headings in bold, lists
 * with bullets, code blocks in a fixed font. A label wraps to the pane's
 * width where a text view in a list of messages would not. */
static char *
markdown_to_markup (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  gboolean code = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      const char *rest = line;

      g_strchomp (line);
      if (i > 0)
        g_string_append_c (out, '\n');

      while (*rest == ' ')
        rest++;

      if (g_str_has_prefix (rest, "```"))
        {
          code = !code;
          continue;
        }

      if (code)
        {
          g_autofree char *escaped = g_markup_escape_text (line, -1);

          g_string_append_printf (out, "<tt>%s</tt>", escaped);
          continue;
        }

      if (*rest == '#')
        {
          guint level = 0;

          while (rest[level] == '#')
            level++;
          if (rest[level] == ' ')
            {
              g_string_append (out, level == 1 ? "<b><big>" : "<b>");
              append_inline_markup (out, rest + level + 1);
              g_string_append (out, level == 1 ? "</big></b>" : "</b>");
              continue;
            }
        }

      if ((*rest == '-' || *rest == '*' || *rest == '+') && rest[1] == ' ')
        {
          g_string_append_printf (out, "%*s• ", (int) (rest - line), "");
          append_inline_markup (out, rest + 2);
          continue;
        }

      append_inline_markup (out, line);
    }

  return g_string_free (out, FALSE);
}

static GtkWidget *
make_answer_row (const char *text,
                 guint64     tokens_in,
                 guint64     tokens_out,
                 GPtrArray  *activity)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *label;
  g_autofree char *markup = NULL;

  gtk_widget_add_css_class (box, "chat-answer");

  if (activity != NULL && activity->len > 0)
    {
      GtkWidget *expander = gtk_expander_new (NULL);
      GtkWidget *lines = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u action", "%u actions",
                                                             activity->len), activity->len);

      gtk_expander_set_label (GTK_EXPANDER (expander), title);
      gtk_widget_add_css_class (expander, "dim-label");
      gtk_widget_add_css_class (expander, "caption");
      for (guint i = 0; i < activity->len; i++)
        gtk_box_append (GTK_BOX (lines), make_note_row (g_ptr_array_index (activity, i), NULL));
      gtk_expander_set_child (GTK_EXPANDER (expander), lines);
      gtk_box_append (GTK_BOX (box), expander);
    }

  markup = markdown_to_markup (text != NULL && *text != '\0' ? text : _("(The model gave no answer.)"));
  label = make_label (NULL, NULL);
  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _("Answer of the chat agent"), -1);
  gtk_box_append (GTK_BOX (box), label);

  if (tokens_in > 0 || tokens_out > 0)
    {
      g_autofree char *tokens = format_tokens (tokens_in, tokens_out);

      gtk_box_append (GTK_BOX (box), make_note_row (tokens, NULL));
    }

  return box;
}

static void
update_tokens (SkChatPane *self)
{
  guint64 tokens_in = 0;
  guint64 tokens_out = 0;

  if (self->session != NULL)
    sk_chat_log_get_tokens (sk_chat_session_get_log (self->session), &tokens_in, &tokens_out);
  tokens_in += self->turn_in;
  tokens_out += self->turn_out;

  if (tokens_in == 0 && tokens_out == 0)
    gtk_label_set_label (self->tokens_label, _("No tokens used yet"));
  else
    {
      g_autofree char *tokens = format_tokens (tokens_in, tokens_out);
      /* Translators: %s is “N tokens read, M written”. */
      g_autofree char *text = g_strdup_printf (_("This conversation: %s"), tokens);

      gtk_label_set_label (self->tokens_label, text);
    }
}

static void
clear_messages (SkChatPane *self)
{
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->messages));

  while (child != NULL)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);

      if (child != self->welcome)
        gtk_box_remove (self->messages, child);
      child = next;
    }

  gtk_widget_set_visible (self->welcome, TRUE);
  self->live_row = NULL;
}

static void
update_warning (SkChatPane *self)
{
  const char *warning = self->session != NULL ? sk_chat_session_get_warning (self->session) : NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->warning_label), warning != NULL);
  gtk_label_set_label (self->warning_label, warning != NULL ? warning : "");
}

static void
load_conversation (SkChatPane *self)
{
  SkChatLog *log;

  clear_messages (self);
  update_tokens (self);
  if (self->session == NULL)
    return;

  log = sk_chat_session_get_log (self->session);
  for (guint i = 0; i < sk_chat_log_get_n_turns (log); i++)
    {
      const SkChatTurn *turn = sk_chat_log_get_turn (log, i);

      if (g_str_equal (turn->role, "user"))
        append_row (self, make_user_row (turn->text));
      else if (g_str_equal (turn->role, "assistant"))
        append_row (self, make_answer_row (turn->text, turn->tokens_in, turn->tokens_out, NULL));
      else
        append_row (self, make_note_row (turn->text, NULL));
    }

  update_warning (self);
}

/* The turn under way -------------------------------------------------------- */

static void
start_live_row (SkChatPane *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *spinner_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *thinking = make_note_row (_("The chat agent is answering…"), NULL);

  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_box_append (GTK_BOX (spinner_box), spinner);
  gtk_box_append (GTK_BOX (spinner_box), thinking);
  gtk_box_append (GTK_BOX (box), spinner_box);

  self->live_activity = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_box_append (GTK_BOX (box), self->live_activity);
  self->live_text = GTK_LABEL (make_label ("", "chat-streaming"));
  gtk_widget_set_visible (GTK_WIDGET (self->live_text), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->live_text));
  self->live_transient = NULL;

  g_string_truncate (self->streamed, 0);
  self->live_row = box;
  append_row (self, box);
}

/* What the model writes while it works, without the fenced tool blocks of
 * servers that take no tool definitions: those are for the program. */
static char *
visible_text (const char *text)
{
  GString *out = g_string_new (NULL);
  const char *p = text;

  while (*p != '\0')
    {
      const char *fence = strstr (p, "```tool");
      const char *end;

      if (fence == NULL)
        {
          g_string_append (out, p);
          break;
        }
      g_string_append_len (out, p, fence - p);
      end = strstr (fence + 7, "```");
      if (end == NULL)
        break;
      p = end + 3;
    }

  return g_strstrip (g_string_free (out, FALSE));
}

static void
session_text_cb (SkChatSession *session,
                 const char    *text,
                 SkChatPane    *self)
{
  g_autofree char *shown = NULL;

  if (self->live_row == NULL)
    return;

  g_string_append (self->streamed, text);
  shown = visible_text (self->streamed->str);
  gtk_label_set_label (self->live_text, shown);
  gtk_widget_set_visible (GTK_WIDGET (self->live_text), *shown != '\0');
  scroll_to_end (self);
}

static void
session_progress_cb (SkChatSession *session,
                     const char    *message,
                     SkChatPane    *self)
{
  if (self->live_row == NULL)
    return;

  if (self->live_transient != NULL)
    {
      gtk_box_remove (GTK_BOX (self->live_activity), self->live_transient);
      self->live_transient = NULL;
    }

  gtk_box_append (GTK_BOX (self->live_activity), make_note_row (message, NULL));
  /* What the model wrote before a tool call is its thinking aloud; the
   * answer comes at the end. */
  g_string_truncate (self->streamed, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->live_text), FALSE);
  scroll_to_end (self);
}

static void
session_usage_cb (SkChatSession *session,
                  guint64        tokens_in,
                  guint64        tokens_out,
                  SkChatPane    *self)
{
  self->turn_in += tokens_in;
  self->turn_out += tokens_out;
  update_tokens (self);
}

static void
session_transient_cb (SkChatSession *session,
                      const char    *message,
                      SkChatPane    *self)
{
  if (self->live_row == NULL)
    return;

  if (self->live_transient != NULL)
    gtk_box_remove (GTK_BOX (self->live_activity), self->live_transient);
  self->live_transient = make_note_row (message, "warning");
  gtk_box_append (GTK_BOX (self->live_activity), self->live_transient);
}

static GPtrArray *
live_activity_lines (SkChatPane *self)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  if (self->live_activity == NULL)
    return lines;

  for (GtkWidget *child = gtk_widget_get_first_child (self->live_activity);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != self->live_transient)
      g_ptr_array_add (lines, g_strdup (gtk_label_get_label (GTK_LABEL (child))));

  return lines;
}

static void
set_busy (SkChatPane *self,
          gboolean    busy)
{
  gtk_widget_set_visible (GTK_WIDGET (self->send_button), !busy);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->accept_button), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->reject_button), !busy);
}

static void
send_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(SkChatPane) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) activity = NULL;
  g_autofree char *reply = NULL;
  guint64 tokens_in = 0;
  guint64 tokens_out = 0;
  GtkWidget *row;

  reply = sk_chat_session_send_finish (SK_CHAT_SESSION (object), result, &tokens_in, &tokens_out, &error);
  g_clear_object (&self->cancellable);

  /* The pane may have been given another session meanwhile. */
  if (self->session != SK_CHAT_SESSION (object))
    return;

  activity = live_activity_lines (self);
  if (self->live_row != NULL)
    {
      gtk_box_remove (self->messages, self->live_row);
      self->live_row = NULL;
      self->live_activity = NULL;
      self->live_transient = NULL;
    }

  set_busy (self, FALSE);
  self->turn_in = 0;
  self->turn_out = 0;

  if (reply != NULL)
    row = make_answer_row (reply, tokens_in, tokens_out, activity);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    row = make_note_row (_("Stopped. What was proposed before is kept for you to review."), NULL);
  else if (g_error_matches (error, SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED))
    {
      GtkWidget *button = gtk_button_new_with_mnemonic (_("_Set Up the Language Model…"));
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->entry_view);

      /* The message went nowhere; it waits in the entry to be sent again. */
      if (gtk_text_buffer_get_char_count (buffer) == 0 && self->last_message != NULL)
        gtk_text_buffer_set_text (buffer, self->last_message, -1);

      row = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      gtk_box_append (GTK_BOX (row), make_note_row (error->message, "error"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "app.preferences");
      gtk_widget_set_halign (button, GTK_ALIGN_START);
      gtk_box_append (GTK_BOX (row), button);
    }
  else
    row = make_note_row (error->message, "error");
  append_row (self, row);

  /* The keyboard stays where it was, in the entry most likely: a proposal
   * is accepted with Alt+A or from its button, never by a key meant for
   * the next message. */
  update_tokens (self);
  update_warning (self);
  update_proposal (self);
}

/**
 * sk_chat_pane_send:
 * @message: what to ask
 *
 * Sends @message with the canvas's selection, as if the person had typed
 * it and pressed Enter.
 */
void
sk_chat_pane_send (SkChatPane *self,
                   const char *message)
{
  g_autoptr(GStrvBuilder) selection = g_strv_builder_new ();
  g_auto(GStrv) ids = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (SK_IS_CHAT_PANE (self));
  g_return_if_fail (message != NULL);

  text = g_strstrip (g_strdup (message));
  if (self->session == NULL || *text == '\0' || sk_chat_session_get_busy (self->session))
    return;

  if (self->canvas != NULL)
    {
      g_autoptr(GPtrArray) nodes = sk_canvas_get_selected_nodes (self->canvas);

      for (guint i = 0; nodes != NULL && i < nodes->len; i++)
        g_strv_builder_add (selection, sk_node_get_id (g_ptr_array_index (nodes, i)));
    }
  ids = g_strv_builder_end (selection);

  gtk_widget_set_visible (GTK_WIDGET (self->conflict_label), FALSE);
  g_free (self->last_message);
  self->last_message = g_strdup (text);
  append_row (self, make_user_row (text));
  start_live_row (self);
  set_busy (self, TRUE);

  self->cancellable = g_cancellable_new ();
  sk_chat_session_send_async (self->session, text, (const char * const *) ids, self->cancellable,
                              send_done_cb, g_object_ref (self));
}

void
sk_chat_pane_stop (SkChatPane *self)
{
  g_return_if_fail (SK_IS_CHAT_PANE (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

/* The entry ----------------------------------------------------------------- */

static void
send_clicked_cb (SkChatPane *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->entry_view);
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  if (self->session == NULL || sk_chat_session_get_busy (self->session) ||
      sk_util_is_blank (text))
    {
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }

  /* What was sent is in the conversation; Ctrl+Z in the entry must not
   * bring it back, nor stand between the person and the workflow's undo. */
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, "", 0);
  gtk_text_buffer_end_irreversible_action (buffer);
  sk_chat_pane_send (self, text);
}

static void
stop_clicked_cb (SkChatPane *self)
{
  sk_chat_pane_stop (self);
}

static gboolean
entry_key_pressed_cb (GtkEventControllerKey *controller,
                      guint                  keyval,
                      guint                  keycode,
                      GdkModifierType        state,
                      SkChatPane            *self)
{
  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) &&
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) == 0)
    {
      send_clicked_cb (self);
      return TRUE;
    }

  return FALSE;
}

/* Escape anywhere in the chat stops the agent; otherwise it leaves the
 * chat for the canvas, as it leaves every cell. */
static gboolean
pane_key_pressed_cb (GtkEventControllerKey *controller,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     SkChatPane            *self)
{
  if (keyval != GDK_KEY_Escape || (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return FALSE;

  if (self->session != NULL && sk_chat_session_get_busy (self->session))
    sk_chat_pane_stop (self);
  else
    gtk_widget_activate_action (GTK_WIDGET (self), "win.focus-canvas", NULL);

  return TRUE;
}

static void
entry_changed_cb (GtkTextBuffer *buffer,
                  SkChatPane    *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label), gtk_text_buffer_get_char_count (buffer) == 0);
}

void
sk_chat_pane_focus_entry (SkChatPane *self)
{
  g_return_if_fail (SK_IS_CHAT_PANE (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->entry_view));
}

/**
 * sk_chat_pane_set_draft_mode:
 * @draft: whether the workflow is empty, so that the chat invites a
 *   description of the whole workflow
 */
void
sk_chat_pane_set_draft_mode (SkChatPane *self,
                             gboolean    draft)
{
  g_return_if_fail (SK_IS_CHAT_PANE (self));

  self->draft_mode = draft;
  if (draft)
    {
      gtk_label_set_label (self->welcome_title, _("Describe Your Workflow"));
      gtk_label_set_label (self->welcome_text,
                           _("Say in a few sentences what the workflow should do, from the data it starts "
                             "with to the results you want. The chat agent drafts its steps, and you "
                             "accept or reject the draft."));
      gtk_label_set_label (self->placeholder_label, _("Describe what the workflow should do…"));
    }
  else
    {
      gtk_label_set_label (self->welcome_title, _("Ask About Your Workflow"));
      gtk_label_set_label (self->welcome_text,
                           _("Ask a question, have a failed step explained, or ask for changes. Changes "
                             "are shown as a proposal, and nothing changes until you accept it."));
      gtk_label_set_label (self->placeholder_label, _("Ask or describe a change…"));
    }
}

/* The proposal -------------------------------------------------------------- */

/* The summary of the whole proposal, and how many of its steps will be
 * left out. */
static void
update_summary (SkChatPane  *self,
                SkChangeset *changeset,
                guint        n_off)
{
  g_autofree char *summary = sk_changeset_describe (changeset);

  if (n_off > 0)
    {
      g_autofree char *off = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                           "%u step is turned off and will stay as it is.",
                                                           "%u steps are turned off and will stay as they are.",
                                                           n_off), n_off);
      g_autofree char *text = g_strconcat (summary, " ", off, NULL);

      gtk_label_set_label (self->proposal_title, text);
    }
  else
    gtk_label_set_label (self->proposal_title, summary);
}

static void
step_toggled_cb (GtkCheckButton *check,
                 SkChatPane     *self)
{
  SkChangeset *changeset = self->session != NULL ? sk_chat_session_get_changeset (self->session) : NULL;
  const char *id = g_object_get_data (G_OBJECT (check), "step-id");
  gboolean all = TRUE;
  guint n_off = 0;

  if (changeset == NULL || id == NULL)
    return;

  sk_changeset_set_step_accepted (changeset, id, gtk_check_button_get_active (check));

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->proposal_list));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *other = g_object_get_data (G_OBJECT (row), "check");

      if (other != NULL && !gtk_check_button_get_active (GTK_CHECK_BUTTON (other)))
        {
          all = FALSE;
          n_off++;
        }
    }
  gtk_button_set_label (self->accept_button, all ? _("_Accept All") : _("_Accept Selected"));
  update_summary (self, changeset, n_off);

  g_signal_emit (self, signals[PROPOSAL_CHANGED], 0);
}

static const char *
change_step_name (SkChangeset    *changeset,
                  const SkChange *change)
{
  SkNode *node = sk_project_get_node (sk_changeset_get_scratch (changeset), change->step_id);

  if (node == NULL)
    node = sk_project_get_node (sk_changeset_get_project (changeset), change->step_id);
  if (node != NULL)
    return sk_node_get_name (node);

  return change->name != NULL ? change->name : change->step_id;
}

static void
update_proposal (SkChatPane *self)
{
  SkChangeset *changeset = self->session != NULL ? sk_chat_session_get_changeset (self->session) : NULL;
  g_autoptr(GHashTable) rows = NULL;
  g_autoptr(GPtrArray) changes = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->proposal_list))) != NULL)
    gtk_list_box_remove (self->proposal_list, child);

  gtk_revealer_set_reveal_child (self->proposal_revealer, changeset != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->proposal_revealer), changeset != NULL);
  gtk_button_set_label (self->accept_button, _("_Accept All"));
  if (changeset == NULL)
    return;

  update_summary (self, changeset, 0);

  /* One row per step, with a switch; changes of the whole workflow are
   * always part of the proposal. */
  rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  changes = sk_changeset_get_changes (changeset);
  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);
      g_autofree char *line = sk_change_describe (change);
      GtkWidget *row;

      row = change->step_id != NULL ? g_hash_table_lookup (rows, change->step_id) : NULL;
      if (row == NULL)
        {
          row = adw_action_row_new ();
          adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
          adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);

          if (change->step_id != NULL)
            {
              GtkWidget *check = gtk_check_button_new ();

              adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), change_step_name (changeset, change));
              gtk_check_button_set_active (GTK_CHECK_BUTTON (check),
                                           sk_changeset_get_step_accepted (changeset, change->step_id));
              g_object_set_data_full (G_OBJECT (check), "step-id", g_strdup (change->step_id), g_free);
              g_object_set_data (G_OBJECT (row), "check", check);
              g_signal_connect_object (check, "toggled", G_CALLBACK (step_toggled_cb), self, 0);
              gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
              adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
              adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
              g_hash_table_insert (rows, g_strdup (change->step_id), row);
            }
          else
            adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("The whole workflow"));

          gtk_list_box_append (self->proposal_list, row);
        }

      {
        const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
        g_autofree char *joined = subtitle != NULL && *subtitle != '\0'
                                  ? g_strconcat (subtitle, "\n", line, NULL) : g_strdup (line);

        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), joined);
      }
    }

  /* Steps turned off before, in an earlier turn, stay off. */
  {
    guint n_off = 0;

    for (child = gtk_widget_get_first_child (GTK_WIDGET (self->proposal_list));
         child != NULL;
         child = gtk_widget_get_next_sibling (child))
      {
        GtkWidget *check = g_object_get_data (G_OBJECT (child), "check");

        if (check != NULL && !gtk_check_button_get_active (GTK_CHECK_BUTTON (check)))
          n_off++;
      }
    if (n_off > 0)
      {
        gtk_button_set_label (self->accept_button, _("_Accept Selected"));
        update_summary (self, changeset, n_off);
      }
  }
}

static void
accept_now (SkChatPane *self,
            gboolean    was_empty)
{
  g_autoptr(GError) error = NULL;

  if (!sk_chat_session_accept (self->session, &error))
    {
      gtk_label_set_label (self->conflict_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->conflict_label), TRUE);
      gtk_widget_grab_focus (GTK_WIDGET (self->reject_button));
      return;
    }

  gtk_widget_set_visible (GTK_WIDGET (self->conflict_label), FALSE);
  append_row (self, make_note_row (was_empty ? _("You accepted the draft. Undo it with Ctrl+Z on the canvas.")
                                             : _("You accepted the proposal. Undo it with Ctrl+Z on the canvas."),
                                   NULL));
  g_signal_emit (self, signals[PROPOSAL_ACCEPTED], 0, was_empty);
}

static void
draft_arranged_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SkChatPane) self = user_data;
  g_autoptr(GHashTable) positions = NULL;
  g_autoptr(GError) error = NULL;
  SkChangeset *changeset;

  positions = sk_layout_arrange_finish (SK_PROJECT (object), result, NULL, &error);
  self->arranging = FALSE;
  set_busy (self, FALSE);

  /* The proposal may have been dropped meanwhile, with the window. */
  changeset = self->session != NULL ? sk_chat_session_get_changeset (self->session) : NULL;
  if (changeset == NULL || sk_changeset_get_scratch (changeset) != SK_PROJECT (object))
    return;

  /* Without a layout the draft keeps the places it was proposed at. */
  if (positions != NULL)
    sk_layout_apply (SK_PROJECT (object), positions);
  else
    g_debug ("The draft could not be arranged: %s", error->message);

  accept_now (self, TRUE);
}

static void
accept_clicked_cb (SkChatPane *self)
{
  SkChangeset *changeset;
  SkProject *project;
  int width = 0, height = 0;

  if (self->session == NULL || self->arranging ||
      (changeset = sk_chat_session_get_changeset (self->session)) == NULL)
    return;

  project = sk_workspace_get_project (sk_chat_session_get_workspace (self->session));
  if (sk_project_get_n_nodes (project) > 0)
    {
      accept_now (self, FALSE);
      return;
    }

  /* A draft is laid out before it is applied, so that accepting it stays
   * one step of the undo history. */
  self->arranging = TRUE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->accept_button), FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->reject_button), FALSE);
  if (self->canvas != NULL)
    {
      width = gtk_widget_get_width (GTK_WIDGET (self->canvas));
      height = gtk_widget_get_height (GTK_WIDGET (self->canvas));
    }
  if (width > 0 && height > 0)
    sk_layout_arrange_to_fit_async (sk_changeset_get_scratch (changeset), SK_CANVAS_NODE_WIDTH,
                                    SK_CANVAS_NODE_HEIGHT, width, height, NULL,
                                    draft_arranged_cb, g_object_ref (self));
  else
    sk_layout_arrange_async (sk_changeset_get_scratch (changeset), SK_CANVAS_NODE_WIDTH,
                             SK_CANVAS_NODE_HEIGHT, SK_LAYOUT_DIRECTION_DOWN, NULL,
                             draft_arranged_cb, g_object_ref (self));
}

static void
reject_clicked_cb (SkChatPane *self)
{
  if (self->session == NULL)
    return;

  sk_chat_session_reject (self->session);
  gtk_widget_set_visible (GTK_WIDGET (self->conflict_label), FALSE);
  append_row (self, make_note_row (_("You rejected the proposal."), NULL));
  sk_chat_pane_focus_entry (self);
}

static void
session_changeset_cb (SkChatSession *session,
                      GParamSpec    *pspec,
                      SkChatPane    *self)
{
  /* During a turn the proposal grows; it is shown when the turn ends. */
  if (!sk_chat_session_get_busy (session))
    update_proposal (self);
}

/* Session ------------------------------------------------------------------- */

SkChatSession *
sk_chat_pane_get_session (SkChatPane *self)
{
  g_return_val_if_fail (SK_IS_CHAT_PANE (self), NULL);

  return self->session;
}

/**
 * sk_chat_pane_set_session:
 * @session: (nullable): the chat of the open workflow
 */
void
sk_chat_pane_set_session (SkChatPane    *self,
                          SkChatSession *session)
{
  g_return_if_fail (SK_IS_CHAT_PANE (self));
  g_return_if_fail (session == NULL || SK_IS_CHAT_SESSION (session));

  if (self->session == session)
    return;

  sk_chat_pane_stop (self);
  g_clear_object (&self->cancellable);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);

  if (session != NULL)
    {
      g_signal_connect_object (session, "text", G_CALLBACK (session_text_cb), self, 0);
      g_signal_connect_object (session, "progress", G_CALLBACK (session_progress_cb), self, 0);
      g_signal_connect_object (session, "transient", G_CALLBACK (session_transient_cb), self, 0);
      g_signal_connect_object (session, "usage", G_CALLBACK (session_usage_cb), self, 0);
      g_signal_connect_object (session, "notify::changeset", G_CALLBACK (session_changeset_cb), self, 0);
    }

  set_busy (self, FALSE);
  self->turn_in = 0;
  self->turn_out = 0;
  load_conversation (self);
  update_proposal (self);
}

/**
 * sk_chat_pane_set_canvas:
 * @canvas: (nullable): the canvas whose selection goes with each message
 */
void
sk_chat_pane_set_canvas (SkChatPane *self,
                         SkCanvas   *canvas)
{
  g_return_if_fail (SK_IS_CHAT_PANE (self));

  self->canvas = canvas;
}

/* The object ---------------------------------------------------------------- */

static void
sk_chat_pane_dispose (GObject *object)
{
  SkChatPane *self = SK_CHAT_PANE (object);
  GtkWidget *child;

  sk_chat_pane_set_session (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), SK_TYPE_CHAT_PANE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (sk_chat_pane_parent_class)->dispose (object);
}

static void
sk_chat_pane_finalize (GObject *object)
{
  SkChatPane *self = SK_CHAT_PANE (object);

  g_string_free (self->streamed, TRUE);
  g_free (self->last_message);

  G_OBJECT_CLASS (sk_chat_pane_parent_class)->finalize (object);
}

static gboolean
sk_chat_pane_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (SK_CHAT_PANE (widget)->entry_view));
}

static void
sk_chat_pane_class_init (SkChatPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sk_chat_pane_dispose;
  object_class->finalize = sk_chat_pane_finalize;
  widget_class->grab_focus = sk_chat_pane_grab_focus;

  /**
   * SkChatPane::proposal-changed:
   *
   * The person turned a step of the proposal on or off.
   */
  signals[PROPOSAL_CHANGED] =
    g_signal_new ("proposal-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /**
   * SkChatPane::proposal-accepted:
   * @was_empty: whether the workflow had no steps before, so that the
   *   accepted draft wants arranging
   */
  signals[PROPOSAL_ACCEPTED] =
    g_signal_new ("proposal-accepted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/skelecode/SkeleCode/sk-chat-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, tokens_label);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, warning_label);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, scroller);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, messages);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, welcome);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, welcome_title);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, welcome_text);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, proposal_revealer);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, proposal_title);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, proposal_list);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, conflict_label);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, accept_button);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, reject_button);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, entry_view);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, send_button);
  gtk_widget_class_bind_template_child (widget_class, SkChatPane, stop_button);
  gtk_widget_class_bind_template_callback (widget_class, send_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, accept_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, reject_clicked_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "chatpane");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sk_chat_pane_init (SkChatPane *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->streamed = g_string_new (NULL);

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (entry_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->entry_view), keys);

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (pane_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  g_signal_connect (gtk_text_view_get_buffer (self->entry_view), "changed", G_CALLBACK (entry_changed_cb), self);

  gtk_widget_set_visible (GTK_WIDGET (self->proposal_revealer), FALSE);
  update_tokens (self);
}

GtkWidget *
sk_chat_pane_new (void)
{
  return g_object_new (SK_TYPE_CHAT_PANE, NULL);
}
