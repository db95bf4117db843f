/* sk-settings.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-settings"

#include "config.h"

#include "sk-settings.h"

/**
 * sk_settings_open_installed:
 *
 * Opens the application's settings when their schema is installed. The
 * command line also runs where the application was never installed, and
 * then uses the defaults.
 *
 * Returns: (transfer full) (nullable): the settings, or %NULL when the
 *   schema is not installed
 */
GSettings *
sk_settings_open_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, SK_SETTINGS_SCHEMA_ID, TRUE);

  if (schema == NULL)
    {
      g_debug ("The schema %s is not installed; using the defaults", SK_SETTINGS_SCHEMA_ID);
      return NULL;
    }

  return g_settings_new_full (schema, NULL, NULL);
}

/**
 * sk_settings_has_key:
 * @settings: the application's settings
 * @key: a key's name
 *
 * An installed schema may be older than this program, so each key is read
 * only when the schema has it.
 *
 * Returns: %TRUE when @settings has @key
 */
gboolean
sk_settings_has_key (GSettings  *settings,
                     const char *key)
{
  g_autoptr(GSettingsSchema) schema = NULL;

  g_return_val_if_fail (G_IS_SETTINGS (settings), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  g_object_get (settings, "settings-schema", &schema, NULL);

  return schema != NULL && g_settings_schema_has_key (schema, key);
}
