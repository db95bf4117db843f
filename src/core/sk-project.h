/* sk-project.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-node.h"

G_BEGIN_DECLS

#define SK_PROJECT_FILE_NAME "process.json"

#define SK_PROJECT_ERROR (sk_project_error_quark ())

typedef enum
{
  SK_PROJECT_ERROR_NOT_FOUND,
  SK_PROJECT_ERROR_PARSE,
  SK_PROJECT_ERROR_INVALID,
  SK_PROJECT_ERROR_CYCLE,
} SkProjectError;

/**
 * SkProblemKind:
 * @SK_PROBLEM_SYNTAX: the file is not valid JSON
 * @SK_PROBLEM_STRUCTURE: a value is missing or has the wrong type
 * @SK_PROBLEM_DUPLICATE_ID: two steps have the same identifier
 * @SK_PROBLEM_EMPTY_KEY: a step's name gives an empty key
 * @SK_PROBLEM_DUPLICATE_KEY: two steps' names give the same key
 * @SK_PROBLEM_DANGLING_PRIOR: a step needs a step that does not exist
 * @SK_PROBLEM_CYCLE: the steps depend on each other in a circle
 * @SK_PROBLEM_MISSING_SCRIPT: a step has no script yet (a warning)
 * @SK_PROBLEM_CONTROL_FLOW: a step's approval gate, conditions, for-each or
 *   sub-workflow (DESIGN §10) is malformed or names a step it does not need
 */
typedef enum
{
  SK_PROBLEM_SYNTAX,
  SK_PROBLEM_STRUCTURE,
  SK_PROBLEM_DUPLICATE_ID,
  SK_PROBLEM_EMPTY_KEY,
  SK_PROBLEM_DUPLICATE_KEY,
  SK_PROBLEM_DANGLING_PRIOR,
  SK_PROBLEM_CYCLE,
  SK_PROBLEM_MISSING_SCRIPT,
  SK_PROBLEM_CONTROL_FLOW,
} SkProblemKind;

/**
 * SkProblem:
 * @kind: what is wrong
 * @node_id: (nullable): the identifier of the step the problem is mainly
 *   about, or %NULL when it is about the workflow as a whole
 * @message: the problem in the user's words, saying what to do
 * @is_warning: whether the workflow can run despite the problem
 * @node_ids: (array zero-terminated=1): every step concerned, such as
 *   each step of a cycle or both steps whose names make the same folder;
 *   never %NULL, empty when the problem is about the workflow as a whole.
 *   An identifier may name a step that does not exist, as a missing
 *   prior does.
 * @edge_pairs: (array zero-terminated=1): the connections concerned, as a
 *   flat list of pairs: a prior's identifier, then the identifier of the
 *   step that needs it; never %NULL
 *
 * One problem found by sk_project_validate().
 */
typedef struct
{
  SkProblemKind  kind;
  char          *node_id;
  char          *message;
  guint          is_warning : 1;
  GStrv          node_ids;
  GStrv          edge_pairs;
} SkProblem;

#define SK_TYPE_PROBLEM (sk_problem_get_type ())
#define SK_TYPE_PROJECT (sk_project_get_type())

GType       sk_problem_get_type      (void) G_GNUC_CONST;
SkProblem  *sk_problem_copy          (const SkProblem *problem);
void        sk_problem_free          (SkProblem       *problem);

GPtrArray  *sk_problems_new_since    (GPtrArray       *before,
                                      GPtrArray       *after);
guint       sk_problems_count_errors (GPtrArray       *problems);
char       *sk_problems_summary      (GPtrArray       *problems);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkProblem, sk_problem_free)

G_DECLARE_FINAL_TYPE (SkProject, sk_project, SK, PROJECT, GObject)

GQuark              sk_project_error_quark          (void);

SkProject          *sk_project_new                  (GFile              *folder);
SkProject          *sk_project_load                 (GFile              *file,
                                                     GError            **error);
SkProject          *sk_project_load_from_data       (const char         *data,
                                                     gssize              length,
                                                     GFile              *folder,
                                                     GError            **error);
char               *sk_project_to_data              (SkProject          *self,
                                                     gsize              *length);
gboolean            sk_project_save                 (SkProject          *self,
                                                     GError            **error);
gboolean            sk_project_save_to_folder       (SkProject          *self,
                                                     GFile              *folder,
                                                     GError            **error);
JsonObject         *sk_project_to_json              (SkProject          *self);
gboolean            sk_project_update_from_json     (SkProject          *self,
                                                     JsonObject         *object,
                                                     GError            **error);

GFile              *sk_project_get_folder           (SkProject          *self);
GFile              *sk_project_get_file             (SkProject          *self);
GFile              *sk_project_get_node_folder      (SkProject          *self,
                                                     SkNode             *node);
GFile              *sk_project_get_node_script      (SkProject          *self,
                                                     SkNode             *node);
char               *sk_project_get_node_script_path (SkProject          *self,
                                                     SkNode             *node);
const char         *sk_project_get_name             (SkProject          *self);
void                sk_project_set_name             (SkProject          *self,
                                                     const char         *name);
const char         *sk_project_get_description      (SkProject          *self);
void                sk_project_set_description      (SkProject          *self,
                                                     const char         *description);
const char         *sk_project_get_python           (SkProject          *self);
gboolean            sk_project_get_network          (SkProject          *self);
gboolean            sk_project_get_modified         (SkProject          *self);
void                sk_project_set_modified         (SkProject          *self,
                                                     gboolean            modified);

guint               sk_project_get_n_nodes          (SkProject          *self);
void                sk_project_get_tokens           (SkProject          *self,
                                                     guint64            *prompt_tokens,
                                                     guint64            *completion_tokens);
SkNode             *sk_project_get_node             (SkProject          *self,
                                                     const char         *id);
SkNode             *sk_project_get_node_by_key      (SkProject          *self,
                                                     const char         *key);
SkNode             *sk_project_lookup_node          (SkProject          *self,
                                                     const char         *id_or_key);
gboolean            sk_project_add_node             (SkProject          *self,
                                                     SkNode             *node,
                                                     GError            **error);
gboolean            sk_project_insert_node          (SkProject          *self,
                                                     guint               position,
                                                     SkNode             *node,
                                                     GError            **error);
void                sk_project_remove_node          (SkProject          *self,
                                                     SkNode             *node);
char               *sk_project_next_node_id         (SkProject          *self);
char               *sk_project_unique_name          (SkProject          *self,
                                                     const char         *base);
gboolean            sk_project_check_name           (SkProject          *self,
                                                     SkNode             *node,
                                                     const char         *name,
                                                     GError            **error);
gboolean            sk_project_can_connect          (SkProject          *self,
                                                     SkNode             *prior,
                                                     SkNode             *node,
                                                     GError            **error);

GPtrArray          *sk_project_validate             (SkProject          *self);
gboolean            sk_project_check                (SkProject          *self,
                                                     GError            **error);

GPtrArray          *sk_project_topological_order    (SkProject          *self,
                                                     GError            **error);
GPtrArray          *sk_project_get_prior_nodes      (SkProject          *self,
                                                     SkNode             *node);
GPtrArray          *sk_project_get_successors       (SkProject          *self,
                                                     SkNode             *node);
GPtrArray          *sk_project_get_descendants      (SkProject          *self,
                                                     SkNode             *node);
GPtrArray          *sk_project_get_ancestors        (SkProject          *self,
                                                     SkNode             *node);
GPtrArray          *sk_project_get_markov_blanket   (SkProject          *self,
                                                     SkNode             *node);
GPtrArray          *sk_project_get_ready_nodes      (SkProject          *self,
                                                     GHashTable         *finished);
GPtrArray          *sk_project_select_nodes         (SkProject          *self,
                                                     const char * const *only,
                                                     const char         *from,
                                                     const char         *to,
                                                     GError            **error);
void                sk_project_mark_stale           (SkProject          *self,
                                                     SkNode             *node);

G_END_DECLS
