/* sk-prompts.c
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "sk-prompts"

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "sk-core-resources.h"
#include "sk-prompts.h"
#include "sk-prompt-template.h"

#define PROMPTS_RESOURCE_PATH "/io/github/skelecode/SkeleCode/prompts/"

static const char * const prompt_names[] = {
  "node-agent",
  "repair",
  "command-reviewer",
  "chat-agent",
  NULL
};

static gboolean
is_known (const char *name)
{
  return g_strv_contains (prompt_names, name);
}

/**
 * sk_prompts_list:
 *
 * Lists the names of the prompts that the program uses, each of which
 * sk_prompts_load() can read.
 *
 * Returns: (transfer none) (array zero-terminated=1): the names
 */
const char * const *
sk_prompts_list (void)
{
  return prompt_names;
}

/**
 * sk_prompts_get_override:
 * @name: a prompt's name, such as `node-agent`
 *
 * Where an organisation puts its own version of the prompt @name:
 * `skele-code/prompts/NAME.txt` in the user's configuration folder
 * (`$XDG_CONFIG_HOME`, usually `~/.config`). The file need not exist.
 *
 * Returns: (transfer full): the path of the override file
 */
char *
sk_prompts_get_override (const char *name)
{
  g_autofree char *basename = NULL;

  g_return_val_if_fail (name != NULL, NULL);

  basename = g_strconcat (name, ".txt", NULL);

  return g_build_filename (g_get_user_config_dir (), PACKAGE_NAME, "prompts", basename, NULL);
}

/**
 * sk_prompts_load:
 * @name: a prompt's name, one of sk_prompts_list()
 * @error: return location for a #GError
 *
 * Reads the template of the prompt @name: the organisation's version when
 * there is one (see sk_prompts_get_override()), otherwise the one built
 * into the program. An override that exists but cannot be read is an
 * error rather than a silent return to the default, so that a broken
 * override is noticed.
 *
 * Returns: (transfer full): the template text, or %NULL with @error set
 */
char *
sk_prompts_load (const char  *name,
                 GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *override = NULL;
  g_autofree char *resource = NULL;
  char *text = NULL;
  gsize length;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!is_known (name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("There is no prompt named “%s”."), name);
      return NULL;
    }

  override = sk_prompts_get_override (name);
  if (g_file_get_contents (override, &text, &length, &local_error))
    {
      if (!g_utf8_validate (text, length, NULL) || strlen (text) != length)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("The prompt “%s” is not UTF-8 text."), override);
          g_free (text);
          return NULL;
        }
      g_debug ("Using the prompt %s", override);
      return text;
    }
  if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("The prompt “%s” could not be read: %s"),
                   override, local_error->message);
      return NULL;
    }

  resource = g_strconcat (PROMPTS_RESOURCE_PATH, name, ".txt", NULL);
  bytes = g_resource_lookup_data (sk_core_get_resource (), resource,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return NULL;

  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/**
 * sk_prompts_render:
 * @name: a prompt's name, one of sk_prompts_list()
 * @values: (nullable) (element-type utf8 utf8): the value of each tag
 * @error: return location for a #GError
 *
 * Loads the prompt @name with sk_prompts_load() and fills it in with
 * sk_prompt_template_render().
 *
 * Returns: (transfer full): the prompt's text, or %NULL with @error set
 */
char *
sk_prompts_render (const char  *name,
                   GHashTable  *values,
                   GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *template_text = NULL;
  char *text;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if ((template_text = sk_prompts_load (name, error)) == NULL)
    return NULL;

  if ((text = sk_prompt_template_render (template_text, values, &local_error)) == NULL)
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("The prompt “%s” is broken: %s"), name, local_error->message);
      return NULL;
    }

  return text;
}
