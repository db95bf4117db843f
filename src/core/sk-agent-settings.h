/* sk-agent-settings.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which language model the coding agent talks to, and how the agent behaves,
 * gathered from Preferences, the environment and the command line. The API
 * keys kept in the desktop keyring are sk-agent-key's.
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

#include "sk-llm-client.h"

G_BEGIN_DECLS

/**
 * SkAgentSettings:
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
} SkAgentSettings;

/**
 * SkAgentSetting:
 * @SK_AGENT_SETTING_PROVIDER: the server's dialect
 * @SK_AGENT_SETTING_BASE_URL: the server's address
 * @SK_AGENT_SETTING_MODEL: the model's name
 * @SK_AGENT_SETTING_API_KEY: the key sent to the server
 *
 * The settings that the environment or the command line may set over
 * Preferences.
 */
typedef enum
{
  SK_AGENT_SETTING_PROVIDER,
  SK_AGENT_SETTING_BASE_URL,
  SK_AGENT_SETTING_MODEL,
  SK_AGENT_SETTING_API_KEY,
} SkAgentSetting;

/**
 * SkSettingSource:
 * @SK_SETTING_SOURCE_DEFAULT: nothing set it: the built-in default
 * @SK_SETTING_SOURCE_PREFERENCES: Preferences
 * @SK_SETTING_SOURCE_ENVIRONMENT: an environment variable, named by
 *   sk_agent_setting_get_variable()
 * @SK_SETTING_SOURCE_COMMAND_LINE: an option of the command line
 * @SK_SETTING_SOURCE_KEYRING: the desktop keyring (the API key only)
 *
 * Where the value of a setting in effect comes from.
 */
typedef enum
{
  SK_SETTING_SOURCE_DEFAULT,
  SK_SETTING_SOURCE_PREFERENCES,
  SK_SETTING_SOURCE_ENVIRONMENT,
  SK_SETTING_SOURCE_COMMAND_LINE,
  SK_SETTING_SOURCE_KEYRING,
} SkSettingSource;

SkAgentSettings *sk_agent_settings_new           (void);
SkAgentSettings *sk_agent_settings_load          (GSettings              *settings,
                                                  gboolean                use_keyring,
                                                  GError                **error);
void             sk_agent_settings_free          (SkAgentSettings        *self);
gboolean         sk_agent_settings_override      (SkAgentSettings        *self,
                                                  const char             *provider,
                                                  const char             *base_url,
                                                  const char             *model,
                                                  GError                **error);
SkLlmClient     *sk_agent_settings_create_client (const SkAgentSettings  *self,
                                                  GError                **error);
char            *sk_agent_settings_describe      (const SkAgentSettings  *self);
gboolean         sk_agent_settings_is_ready      (const SkAgentSettings  *self);
const char      *sk_agent_settings_get_value     (const SkAgentSettings  *self,
                                                  SkAgentSetting          setting);
SkSettingSource  sk_agent_settings_get_source    (const SkAgentSettings  *self,
                                                  SkAgentSetting          setting);
const char      *sk_agent_setting_get_variable   (SkAgentSetting          setting);
char            *sk_agent_settings_describe_source (const SkAgentSettings *self,
                                                  SkAgentSetting          setting);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkAgentSettings, sk_agent_settings_free)

G_END_DECLS
