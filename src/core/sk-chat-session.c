/* sk-chat-session.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A chat session ties the chat agent to an open workflow. Every message is
 * kept in the conversation before it is sent, so that nothing the person
 * wrote is lost when the model fails; what the agent proposes stays in one
 * changeset across turns until the person accepts or rejects it, so that
 * "and also…" adds to the same proposal. The conversation is written into
 * the workflow's folder only once the workflow itself is saved there.
 */

#define G_LOG_DOMAIN "sk-chat-session"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sk-agent-key.h"
#include "sk-agent-settings.h"
#include "sk-chat-agent.h"
#include "sk-chat-session.h"
#include "sk-step-folder.h"

struct _SkChatSession
{
  GObject       parent_instance;

  SkWorkspace  *workspace;
  SkChatLog    *log;
  SkChangeset  *changeset;
  char         *provider;
  char         *base_url;
  char         *model;
  guint         max_steps;
  /* Why the conversation on disk is not written over, if it is not. */
  char         *log_error;

  /* One turn. */
  GTask        *task;
  SkChatAgent  *agent;
  SkAgentSettings *settings;
  gboolean      turn_logged;
  gboolean      log_blocked;
  /* Whether the conversation has turns not yet written. */
  gboolean      log_dirty;
  /* Whether the model wanted the tools as text; the next turns begin so,
   * without a refused request each time. */
  gboolean      text_tools;
};

G_DEFINE_FINAL_TYPE (SkChatSession, sk_chat_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CHANGESET,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  TEXT,
  PROGRESS,
  TRANSIENT,
  USAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  char    *reply;
  guint64  tokens_in;
  guint64  tokens_out;
} TurnResult;

static void
turn_result_free (TurnResult *result)
{
  g_free (result->reply);
  g_free (result);
}

static gboolean
workflow_is_saved (SkChatSession *self)
{
  GFile *folder = sk_workspace_get_folder (self->workspace);
  g_autoptr(GFile) process = NULL;

  if (folder == NULL)
    return FALSE;

  process = g_file_get_child (folder, "process.json");
  return g_file_query_exists (process, NULL);
}

/**
 * sk_chat_session_save_log:
 *
 * Writes the conversation into the workflow's `.skele/chat.json`. The
 * session does so after every message once the workflow is saved; call
 * this after saving a new workflow for the first time.
 */
gboolean
sk_chat_session_save_log (SkChatSession  *self,
                          GError        **error)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), FALSE);

  /* A conversation that could not be read is never written over. */
  if (self->log_blocked)
    return TRUE;

  return sk_chat_log_save (self->log, error);
}

static void
keep_log (SkChatSession *self)
{
  g_autoptr(GError) error = NULL;

  self->log_dirty = TRUE;
  if (self->log_blocked || !workflow_is_saved (self))
    return;

  g_clear_pointer (&self->log_error, g_free);
  if (!sk_chat_log_save (self->log, &error))
    self->log_error = g_strdup_printf (_("The conversation could not be saved: %s"), error->message);
  else
    self->log_dirty = FALSE;
}

/* A workflow saved elsewhere takes its conversation along. */
static void
workspace_folder_cb (SkChatSession *self)
{
  GFile *folder = sk_workspace_get_folder (self->workspace);
  g_autoptr(GFile) file = NULL;

  if (folder == NULL)
    return;
  file = sk_step_folder_get_chat_log (folder);
  if (g_file_equal (file, sk_chat_log_get_file (self->log)))
    return;

  sk_chat_log_set_folder (self->log, folder);
  self->log_blocked = FALSE;
  g_clear_pointer (&self->log_error, g_free);
  if (sk_chat_log_get_n_turns (self->log) > 0)
    keep_log (self);
}

/* A new workflow's conversation is kept in memory until the workflow is
 * saved for the first time, and then written with it. */
static void
workspace_saved_cb (SkChatSession *self)
{
  if (self->log_dirty)
    keep_log (self);
}

/**
 * sk_chat_session_get_warning:
 *
 * Returns: (nullable): what the person should know about the conversation
 *   on disk: that it could not be read and was put aside, that it cannot
 *   be read at all and is therefore not written, or that saving failed
 */
const char *
sk_chat_session_get_warning (SkChatSession *self)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), NULL);

  return self->log_error != NULL ? self->log_error : sk_chat_log_get_warning (self->log);
}

static void
set_changeset (SkChatSession *self,
               SkChangeset   *changeset)
{
  if (changeset != NULL && sk_changeset_is_empty (changeset))
    changeset = NULL;

  g_set_object (&self->changeset, changeset);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHANGESET]);
}

static void
finish_turn (SkChatSession *self,
             char          *reply,
             GError        *error)
{
  GTask *task = g_steal_pointer (&self->task);
  guint64 tokens_in = 0;
  guint64 tokens_out = 0;

  if (self->agent != NULL)
    {
      self->text_tools = sk_chat_agent_get_text_tools (self->agent);
      sk_chat_agent_get_usage (self->agent, &tokens_in, &tokens_out);
      set_changeset (self, sk_chat_agent_get_changeset (self->agent));
    }

  /* A message that was never sent, for want of a model, is not part of
   * the conversation. */
  if (!self->turn_logged)
    ;
  else if (error == NULL)
    {
      g_autofree char *changes = self->changeset != NULL ? sk_changeset_describe (self->changeset) : NULL;

      sk_chat_log_append (self->log, "assistant", reply, tokens_in, tokens_out);
      if (changes != NULL)
        {
          g_autofree char *note = g_strdup_printf (_("Proposed, not decided yet:\n%s"), changes);

          sk_chat_log_append (self->log, "tool", note, 0, 0);
        }
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *note = g_strdup_printf (_("The chat agent stopped: %s"), error->message);

      sk_chat_log_append (self->log, "tool", note, tokens_in, tokens_out);
    }
  else
    sk_chat_log_append (self->log, "tool", _("The chat agent was stopped."), tokens_in, tokens_out);
  if (self->turn_logged)
    keep_log (self);
  self->turn_logged = FALSE;

  g_clear_object (&self->agent);
  g_clear_pointer (&self->settings, sk_agent_settings_free);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);

  if (error != NULL)
    {
      g_free (reply);
      g_task_return_error (task, error);
    }
  else
    {
      TurnResult *result = g_new0 (TurnResult, 1);

      result->reply = reply;
      result->tokens_in = tokens_in;
      result->tokens_out = tokens_out;
      g_task_return_pointer (task, result, (GDestroyNotify) turn_result_free);
    }
  g_object_unref (task);
}

static void
text_cb (SkChatAgent   *agent,
         const char    *text,
         SkChatSession *self)
{
  g_signal_emit (self, signals[TEXT], 0, text);
}

static void
progress_cb (SkChatAgent   *agent,
             const char    *message,
             SkChatSession *self)
{
  g_signal_emit (self, signals[PROGRESS], 0, message);
}

static void
transient_cb (SkChatAgent   *agent,
              const char    *message,
              SkChatSession *self)
{
  g_signal_emit (self, signals[TRANSIENT], 0, message);
}

static void
usage_cb (SkChatAgent   *agent,
          guint64        tokens_in,
          guint64        tokens_out,
          SkChatSession *self)
{
  g_signal_emit (self, signals[USAGE], 0, tokens_in, tokens_out);
}

static void
agent_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SkChatSession) self = user_data;
  g_autoptr(GError) error = NULL;
  char *reply;

  reply = sk_chat_agent_send_finish (SK_CHAT_AGENT (object), result, &error);
  finish_turn (self, reply, g_steal_pointer (&error));
}

static void
start_agent (SkChatSession *self)
{
  g_autoptr(SkLlmClient) client = NULL;
  g_autoptr(SkChangeset) changeset = NULL;
  g_autoptr(GPtrArray) turns = NULL;
  g_autoptr(GError) error = NULL;
  const char * const *selection;

  client = sk_agent_settings_create_client (self->settings, &error);
  if (client == NULL)
    {
      finish_turn (self, NULL, g_steal_pointer (&error));
      return;
    }

  changeset = self->changeset != NULL ? g_object_ref (self->changeset)
                                      : sk_changeset_new (sk_workspace_get_project (self->workspace));
  self->agent = sk_chat_agent_new (client, changeset);
  sk_chat_agent_set_max_steps (self->agent, self->max_steps);
  sk_chat_agent_set_text_tools (self->agent, self->text_tools);
  selection = g_task_get_task_data (self->task);
  sk_chat_agent_set_selection (self->agent, selection);
  g_signal_connect_object (self->agent, "text", G_CALLBACK (text_cb), self, 0);
  g_signal_connect_object (self->agent, "progress", G_CALLBACK (progress_cb), self, 0);
  g_signal_connect_object (self->agent, "transient", G_CALLBACK (transient_cb), self, 0);
  g_signal_connect_object (self->agent, "usage", G_CALLBACK (usage_cb), self, 0);

  turns = sk_chat_log_for_prompt (self->log, SK_CHAT_SESSION_HISTORY_CHARS);
  sk_chat_agent_send_async (self->agent, turns, g_task_get_cancellable (self->task),
                            agent_done_cb, g_object_ref (self));
}

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SkChatSession) self = user_data;
  g_autoptr(GError) error = NULL;
  char *key;

  key = sk_agent_key_lookup_finish (result, &error);
  if (g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    {
      g_free (key);
      finish_turn (self, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Stopped")));
      return;
    }

  /* A server on this computer often needs no key; one that does says so. */
  if (error != NULL)
    g_debug ("No API key from the keyring: %s", error->message);

  g_free (self->settings->api_key);
  self->settings->api_key = key;
  start_agent (self);
}

/**
 * sk_chat_session_send_async:
 * @self: a #SkChatSession
 * @message: what the person wrote
 * @selection: (nullable) (array zero-terminated=1): the ids of the steps
 *   the person has selected
 * @cancellable: (nullable): stops the turn
 * @callback: called with the answer
 * @user_data: data for @callback
 *
 * Keeps @message in the conversation and lets the chat agent answer it,
 * with the coding agent's model, settings and keyring. What it proposes
 * becomes #SkChatSession:changeset.
 */
void
sk_chat_session_send_async (SkChatSession       *self,
                            const char          *message,
                            const char * const  *selection,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SK_IS_CHAT_SESSION (self));
  g_return_if_fail (message != NULL);
  g_return_if_fail (self->task == NULL);

  self->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (self->task, sk_chat_session_send_async);
  g_task_set_task_data (self->task, g_strdupv ((char **) selection), (GDestroyNotify) g_strfreev);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);

  self->settings = sk_agent_settings_load (sk_workspace_get_settings (self->workspace), FALSE, &error);
  if (self->settings == NULL ||
      !sk_agent_settings_override (self->settings, self->provider, self->base_url, self->model, &error))
    {
      finish_turn (self, NULL, g_error_new (SK_LLM_ERROR, SK_LLM_ERROR_NOT_CONFIGURED, "%s", error->message));
      return;
    }

  /* Without a model the message goes nowhere; the error says how to set
   * one up, and the conversation is left as it was. */
  if (self->settings->model == NULL || self->settings->model[0] == '\0')
    {
      g_autoptr(SkLlmClient) client = sk_agent_settings_create_client (self->settings, &error);

      if (client == NULL)
        {
          finish_turn (self, NULL, g_steal_pointer (&error));
          return;
        }
    }

  sk_chat_log_append (self->log, "user", message, 0, 0);
  self->turn_logged = TRUE;
  keep_log (self);

  if (self->settings->model != NULL && self->settings->model[0] != '\0' && self->settings->api_key == NULL)
    {
      sk_agent_key_lookup_async (self->settings->provider, self->settings->base_url, cancellable,
                                 key_lookup_cb, g_object_ref (self));
      return;
    }

  start_agent (self);
}

/**
 * sk_chat_session_send_finish:
 * @tokens_in: (out) (optional): the tokens the turn read
 * @tokens_out: (out) (optional): the tokens it wrote
 *
 * Returns: (transfer full): the answer, or %NULL with @error set:
 *   %SK_LLM_ERROR_NOT_CONFIGURED when no model is chosen, another
 *   #SkLlmError or #SkChatAgentError when the model failed,
 *   %G_IO_ERROR_CANCELLED when stopped
 */
char *
sk_chat_session_send_finish (SkChatSession  *self,
                             GAsyncResult   *result,
                             guint64        *tokens_in,
                             guint64        *tokens_out,
                             GError        **error)
{
  TurnResult *turn;
  char *reply;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  turn = g_task_propagate_pointer (G_TASK (result), error);
  if (turn == NULL)
    return NULL;

  if (tokens_in != NULL)
    *tokens_in = turn->tokens_in;
  if (tokens_out != NULL)
    *tokens_out = turn->tokens_out;
  reply = g_steal_pointer (&turn->reply);
  turn_result_free (turn);

  return reply;
}

/* Whether the person's choices let @change through: a step turned off
 * keeps its changes out, and a new step turned off is not there to be
 * connected. */
static gboolean
change_is_accepted (SkChangeset    *changeset,
                    const SkChange *change)
{
  if (change->step_id != NULL && !sk_changeset_get_step_accepted (changeset, change->step_id))
    return FALSE;

  if (change->kind == SK_CHANGE_CONNECTED && change->other_id != NULL &&
      !sk_changeset_get_step_accepted (changeset, change->other_id) &&
      sk_project_get_node (sk_changeset_get_project (changeset), change->other_id) == NULL)
    return FALSE;

  return TRUE;
}

/* What the model is told was applied, and what was left out, so that the
 * next turn does not take a step turned off for a step made. */
static char *
describe_decision (SkChangeset *changeset)
{
  g_autoptr(GPtrArray) changes = sk_changeset_get_changes (changeset);
  g_autoptr(GString) accepted = g_string_new (NULL);
  g_autoptr(GString) left_out = g_string_new (NULL);

  for (guint i = 0; i < changes->len; i++)
    {
      const SkChange *change = g_ptr_array_index (changes, i);
      g_autofree char *line = sk_change_describe (change);
      GString *out = change_is_accepted (changeset, change) ? accepted : left_out;

      g_string_append_printf (out, "\n%s", line);
    }

  if (left_out->len == 0)
    return g_strdup_printf (_("Proposal accepted:%s"), accepted->str);
  if (accepted->len == 0)
    return g_strdup_printf (_("Proposal rejected, every change turned off:%s"), left_out->str);

  return g_strdup_printf (_("Proposal accepted in part. Applied:%s\nLeft out:%s"),
                          accepted->str, left_out->str);
}

/**
 * sk_chat_session_accept:
 *
 * Applies the pending proposal, with the steps the person turned off left
 * out, as one step of the workflow's undo history.
 *
 * Returns: %FALSE, keeping the proposal, when it conflicts with the
 *   person's own edits since it was made
 */
gboolean
sk_chat_session_accept (SkChatSession  *self,
                        GError        **error)
{
  g_autofree char *note = NULL;

  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), FALSE);
  g_return_val_if_fail (self->changeset != NULL, FALSE);

  note = describe_decision (self->changeset);
  if (!sk_changeset_apply (self->changeset, sk_workspace_get_history (self->workspace), error))
    return FALSE;

  sk_chat_log_append (self->log, "tool", note, 0, 0);
  keep_log (self);
  set_changeset (self, NULL);

  return TRUE;
}

/**
 * sk_chat_session_reject:
 *
 * Drops the pending proposal; the workflow stays as it is.
 */
void
sk_chat_session_reject (SkChatSession *self)
{
  g_return_if_fail (SK_IS_CHAT_SESSION (self));

  if (self->changeset == NULL)
    return;

  sk_chat_log_append (self->log, "tool", _("Proposal rejected."), 0, 0);
  keep_log (self);
  set_changeset (self, NULL);
}

/* Accessors ----------------------------------------------------------------- */

SkWorkspace *
sk_chat_session_get_workspace (SkChatSession *self)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), NULL);

  return self->workspace;
}

SkChatLog *
sk_chat_session_get_log (SkChatSession *self)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), NULL);

  return self->log;
}

/**
 * sk_chat_session_get_changeset:
 *
 * Returns: (transfer none) (nullable): the proposal waiting for the
 *   person's decision; never an empty one
 */
SkChangeset *
sk_chat_session_get_changeset (SkChatSession *self)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), NULL);

  return self->changeset;
}

gboolean
sk_chat_session_get_busy (SkChatSession *self)
{
  g_return_val_if_fail (SK_IS_CHAT_SESSION (self), FALSE);

  return self->task != NULL;
}

/**
 * sk_chat_session_set_overrides:
 * @provider: (nullable): the server kind, over the settings
 * @base_url: (nullable): the server, over the settings
 * @model: (nullable): the model, over the settings
 */
void
sk_chat_session_set_overrides (SkChatSession *self,
                               const char    *provider,
                               const char    *base_url,
                               const char    *model)
{
  g_return_if_fail (SK_IS_CHAT_SESSION (self));

  g_free (self->provider);
  self->provider = g_strdup (provider);
  g_free (self->base_url);
  self->base_url = g_strdup (base_url);
  g_free (self->model);
  self->model = g_strdup (model);
}

void
sk_chat_session_set_max_steps (SkChatSession *self,
                               guint          max_steps)
{
  g_return_if_fail (SK_IS_CHAT_SESSION (self));

  self->max_steps = MAX (max_steps, 1);
}

/* The object ---------------------------------------------------------------- */

static void
sk_chat_session_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  SkChatSession *self = SK_CHAT_SESSION (object);

  switch (prop_id)
    {
    case PROP_CHANGESET:
      g_value_set_object (value, self->changeset);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, sk_chat_session_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sk_chat_session_finalize (GObject *object)
{
  SkChatSession *self = SK_CHAT_SESSION (object);

  g_clear_object (&self->workspace);
  g_clear_pointer (&self->log, sk_chat_log_free);
  g_clear_object (&self->changeset);
  g_free (self->provider);
  g_free (self->base_url);
  g_free (self->model);
  g_free (self->log_error);
  g_clear_object (&self->agent);
  g_clear_pointer (&self->settings, sk_agent_settings_free);

  G_OBJECT_CLASS (sk_chat_session_parent_class)->finalize (object);
}

static void
sk_chat_session_class_init (SkChatSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sk_chat_session_get_property;
  object_class->finalize = sk_chat_session_finalize;

  /**
   * SkChatSession:changeset:
   *
   * The proposal waiting for the person's decision, or %NULL.
   */
  properties[PROP_CHANGESET] =
    g_param_spec_object ("changeset", NULL, NULL, SK_TYPE_CHANGESET,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SkChatSession:busy:
   *
   * Whether the chat agent is answering.
   */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SkChatSession::text:
   * @text: a piece of the answer as it arrives
   */
  signals[TEXT] =
    g_signal_new ("text", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatSession::progress:
   * @message: what the agent looks at or proposes, in plain language
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatSession::transient:
   * @message: a wait, such as a request sent again
   */
  signals[TRANSIENT] =
    g_signal_new ("transient", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * SkChatSession::usage:
   * @tokens_in: tokens one call read
   * @tokens_out: tokens it wrote
   */
  signals[USAGE] =
    g_signal_new ("usage", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_UINT64);
}

static void
sk_chat_session_init (SkChatSession *self)
{
  self->max_steps = SK_CHAT_AGENT_DEFAULT_MAX_STEPS;
}

/**
 * sk_chat_session_new:
 * @workspace: an open workflow
 *
 * Opens the workflow's conversation. A conversation file that cannot be
 * read is put aside, and sk_chat_log_get_warning() says so.
 *
 * Returns: (transfer full): the workflow's chat
 */
SkChatSession *
sk_chat_session_new (SkWorkspace *workspace)
{
  SkChatSession *self;
  GFile *folder;

  g_return_val_if_fail (SK_IS_WORKSPACE (workspace), NULL);
  g_return_val_if_fail (sk_workspace_get_folder (workspace) != NULL, NULL);

  self = g_object_new (SK_TYPE_CHAT_SESSION, NULL);
  self->workspace = g_object_ref (workspace);
  folder = sk_workspace_get_folder (workspace);
  g_signal_connect_object (workspace, "saved", G_CALLBACK (workspace_saved_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (workspace, "notify::folder", G_CALLBACK (workspace_folder_cb), self, G_CONNECT_SWAPPED);

  if (workflow_is_saved (self))
    {
      g_autoptr(GError) error = NULL;

      self->log = sk_chat_log_load (folder, &error);
      if (self->log == NULL)
        {
          g_autoptr(GFile) file = sk_step_folder_get_chat_log (folder);
          g_autofree char *path = g_file_get_path (file);

          self->log_blocked = TRUE;
          self->log_error = g_strdup_printf (_("The conversation in %s cannot be read (%s), so this chat "
                                               "is not kept. Move the file away to keep the next one."),
                                             path, error->message);
        }
    }
  if (self->log == NULL)
    self->log = sk_chat_log_new (folder);

  return self;
}
