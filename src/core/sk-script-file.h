/* sk-script-file.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#define SK_TYPE_SCRIPT_FILE (sk_script_file_get_type())

G_DECLARE_FINAL_TYPE (SkScriptFile, sk_script_file, SK, SCRIPT_FILE, GObject)

SkScriptFile *sk_script_file_new                 (GFile                *workflow_folder,
                                                  const char           *key);
GFile        *sk_script_file_get_workflow_folder (SkScriptFile         *self);
const char   *sk_script_file_get_key             (SkScriptFile         *self);
GFile        *sk_script_file_get_file            (SkScriptFile         *self);
const char   *sk_script_file_get_text            (SkScriptFile         *self);
void          sk_script_file_set_text            (SkScriptFile         *self,
                                                  const char           *text);
gboolean      sk_script_file_get_has_script      (SkScriptFile         *self);
gboolean      sk_script_file_get_modified        (SkScriptFile         *self);
gboolean      sk_script_file_get_loading         (SkScriptFile         *self);
gboolean      sk_script_file_get_busy            (SkScriptFile         *self);
void          sk_script_file_load                (SkScriptFile         *self);
void          sk_script_file_save                (SkScriptFile         *self);
void          sk_script_file_delete              (SkScriptFile         *self);
void          sk_script_file_check               (SkScriptFile         *self);
void          sk_script_file_close               (SkScriptFile         *self);
void          sk_script_file_put_aside_async     (SkScriptFile         *self,
                                                  GCancellable         *cancellable,
                                                  GAsyncReadyCallback   callback,
                                                  gpointer              user_data);
gboolean      sk_script_file_put_aside_finish    (SkScriptFile         *self,
                                                  GAsyncResult         *result,
                                                  GError              **error);

G_END_DECLS
