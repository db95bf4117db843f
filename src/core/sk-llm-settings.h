/* sk-llm-settings.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which language model the coding agent talks to, and how the agent behaves,
 * gathered from Preferences, the environment and the command line; and the
 * API keys kept in the desktop keyring.
 */

#pragma once

#include <gio/gio.h>

#include "sk-llm.h"
#include "sk-llm-client.h"
#include "sk-runner.h"

G_BEGIN_DECLS

#define SK_LLM_SETTINGS_SCHEMA_ID "io.github.skelecode.SkeleCode"

/**
 * SkLlmSettings:
 * @provider: the server's dialect
 * @base_url: the server's address; never %NULL once loaded
 * @model: the model's name; empty when none is configured
 * @api_key: (nullable): the key sent to the server
 * @repair_attempts: how many times a failed step is repaired
 * @max_steps: the agent's reply budget per task
 * @require_sandbox: refuse to run commands without a sandbox
 * @review_commands: let a second model call review each command
 * @allow_network: let commands reach the network
 */
typedef struct
{
  SkLlmProvider  provider;
  char          *base_url;
  char          *model;
  char          *api_key;
  guint          repair_attempts;
  guint          max_steps;
  gboolean       require_sandbox;
  gboolean       review_commands;
  gboolean       allow_network;
} SkLlmSettings;

SkLlmSettings *sk_llm_settings_new           (void);
SkLlmSettings *sk_llm_settings_load          (GSettings            *settings,
                                              gboolean              use_keyring,
                                              GError              **error);
void           sk_llm_settings_free          (SkLlmSettings        *self);
gboolean       sk_llm_settings_override      (SkLlmSettings        *self,
                                              const char           *provider,
                                              const char           *base_url,
                                              const char           *model,
                                              GError              **error);
SkLlmClient   *sk_llm_settings_create_client (const SkLlmSettings  *self,
                                              GError              **error);
char          *sk_llm_settings_describe      (const SkLlmSettings  *self);
gboolean       sk_llm_settings_apply_to_runner (const SkLlmSettings *self,
                                              SkRunner             *runner,
                                              GError              **error);

void           sk_llm_key_store_async        (SkLlmProvider         provider,
                                              const char           *base_url,
                                              const char           *api_key,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       sk_llm_key_store_finish       (GAsyncResult         *result,
                                              GError              **error);
void           sk_llm_key_lookup_async       (SkLlmProvider         provider,
                                              const char           *base_url,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
char          *sk_llm_key_lookup_finish      (GAsyncResult         *result,
                                              GError              **error);
char          *sk_llm_key_lookup_sync        (SkLlmProvider         provider,
                                              const char           *base_url,
                                              GCancellable         *cancellable,
                                              GError              **error);
void           sk_llm_key_clear_async        (SkLlmProvider         provider,
                                              const char           *base_url,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
gboolean       sk_llm_key_clear_finish       (GAsyncResult         *result,
                                              GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkLlmSettings, sk_llm_settings_free)

G_END_DECLS
