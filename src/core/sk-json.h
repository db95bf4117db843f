/* sk-json.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Tolerant getters: a member that is missing or of another type reads as
 * absent (NULL, or FALSE with the out value untouched) and never warns, as
 * json-glib's own getters do. @object may be NULL. */
JsonNode    *sk_json_get_member   (JsonObject  *object,
                                   const char  *name);
const char  *sk_json_get_string   (JsonObject  *object,
                                   const char  *name);
JsonObject  *sk_json_get_object   (JsonObject  *object,
                                   const char  *name);
JsonArray   *sk_json_get_array    (JsonObject  *object,
                                   const char  *name);
gboolean     sk_json_get_boolean  (JsonObject  *object,
                                   const char  *name,
                                   gboolean    *value);
gboolean     sk_json_get_int      (JsonObject  *object,
                                   const char  *name,
                                   gint64      *value);
gboolean     sk_json_get_double   (JsonObject  *object,
                                   const char  *name,
                                   double      *value);

/* JSON nested deeper than this is refused before it reaches a parser: the
 * parsers recurse, and a hostile file or server could exhaust the stack. */
#define SK_JSON_MAX_DEPTH 512

gboolean     sk_json_check_depth  (const char  *data,
                                   gssize       length,
                                   guint        max_depth,
                                   GError     **error);

/* json-glib turns an escaped UTF-16 surrogate without its other half into
 * bytes that are not UTF-8; text is passed through this before parsing. */
char        *sk_json_replace_lone_surrogates (const char *data,
                                              gssize      length,
                                              gsize      *new_length,
                                              guint      *count);
JsonNode    *sk_json_repair_utf8          (JsonNode   *root,
                                              guint      *count);

/* JSON as json-glib's generator writes it, read as json-glib's parser
 * would but faster; %NULL where the parser must read it instead. In
 * sk-project-load-fast.c, with the fast reader of process.json. */
JsonNode    *sk_json_read_canonical (const char *data,
                                     gsize       length);

/* Reading and writing whole files. */
JsonObject  *sk_json_read_object  (const char  *path,
                                   GError     **error);
void         sk_json_append_pretty (GString    *out,
                                    JsonNode   *node,
                                    guint       level);
void         sk_json_append_string (GString    *out,
                                    const char *text);
void         sk_json_append_double (GString    *out,
                                    double      value);
void         sk_json_append_strv   (GString            *out,
                                    guint               level,
                                    const char * const *strv);
void         sk_json_append_member (GString    *out,
                                    guint       level,
                                    gboolean   *first,
                                    const char *name);
void         sk_json_append_members (GString    *out,
                                     guint       level,
                                     gboolean   *first,
                                     JsonObject *object);
void         sk_json_append_object_end (GString  *out,
                                        guint     level,
                                        gboolean  first);
char        *sk_json_to_data      (JsonNode    *root,
                                   gboolean     pretty,
                                   gsize       *length);
gboolean     sk_json_write_atomic (const char  *path,
                                   JsonNode    *root,
                                   gboolean     durable,
                                   GError     **error);

G_END_DECLS
