/* sk-node.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#if !defined (SKELE_INSIDE) && !defined (SKELE_COMPILATION)
# error "Only \"skele.h\" can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * SkNodeState:
 * @SK_NODE_STATE_IDLE: nothing has happened to the node in this session
 * @SK_NODE_STATE_STALE: the node or something upstream changed since its last run
 * @SK_NODE_STATE_QUEUED: the node will run once its priors have finished
 * @SK_NODE_STATE_RUNNING: the node's script is running
 * @SK_NODE_STATE_SUCCEEDED: the script reported success
 * @SK_NODE_STATE_FAILED: the script failed, crashed, timed out or reported failure
 * @SK_NODE_STATE_SKIPPED: the script's preprocess() declined to run
 * @SK_NODE_STATE_CANCELLED: the run was stopped before the node finished
 * @SK_NODE_STATE_UP_TO_DATE: nothing changed since the last successful run
 * @SK_NODE_STATE_WRITING_CODE: the coding agent is writing or repairing the script
 * @SK_NODE_STATE_NO_CODE: the node has no script, or one with nothing but
 *   spaces, and no coding agent was there to write it, so it was not run
 * @SK_NODE_STATE_AWAITING_APPROVAL: the node is an approval gate whose
 *   inputs are ready; the run stopped before it until someone decides
 */
typedef enum
{
  SK_NODE_STATE_IDLE,
  SK_NODE_STATE_STALE,
  SK_NODE_STATE_QUEUED,
  SK_NODE_STATE_RUNNING,
  SK_NODE_STATE_SUCCEEDED,
  SK_NODE_STATE_FAILED,
  SK_NODE_STATE_SKIPPED,
  SK_NODE_STATE_CANCELLED,
  SK_NODE_STATE_UP_TO_DATE,
  SK_NODE_STATE_WRITING_CODE,
  SK_NODE_STATE_NO_CODE,
  SK_NODE_STATE_AWAITING_APPROVAL,
} SkNodeState;

#define SK_TYPE_NODE (sk_node_get_type())

G_DECLARE_FINAL_TYPE (SkNode, sk_node, SK, NODE, GObject)

SkNode              *sk_node_new               (const char          *id,
                                                const char          *name);
SkNode              *sk_node_new_from_json     (const char          *id,
                                                JsonObject          *object);
JsonObject          *sk_node_to_json           (SkNode              *self);
gboolean             sk_node_update_from_json  (SkNode              *self,
                                                JsonObject          *object,
                                                GError             **error);

const char          *sk_node_get_id            (SkNode              *self);
const char          *sk_node_get_key           (SkNode              *self);
const char          *sk_node_get_name          (SkNode              *self);
void                 sk_node_set_name          (SkNode              *self,
                                                const char          *name);
const char          *sk_node_get_description   (SkNode              *self);
void                 sk_node_set_description   (SkNode              *self,
                                                const char          *description);
const char * const  *sk_node_get_priors        (SkNode              *self);
void                 sk_node_set_priors        (SkNode              *self,
                                                const char * const  *priors);
gboolean             sk_node_has_prior         (SkNode              *self,
                                                const char          *id);
gboolean             sk_node_add_prior         (SkNode              *self,
                                                const char          *id);
gboolean             sk_node_remove_prior      (SkNode              *self,
                                                const char          *id);
gboolean             sk_node_get_run           (SkNode              *self);
void                 sk_node_set_run           (SkNode              *self,
                                                gboolean             run);
const char          *sk_node_get_input_text    (SkNode              *self);
void                 sk_node_set_input_text    (SkNode              *self,
                                                const char          *text);
const char * const  *sk_node_get_input_files   (SkNode              *self);
void                 sk_node_set_input_files   (SkNode              *self,
                                                const char * const  *files);
const char          *sk_node_get_output_text   (SkNode              *self);
void                 sk_node_set_output_text   (SkNode              *self,
                                                const char          *text);
const char * const  *sk_node_get_output_files  (SkNode              *self);
void                 sk_node_set_output_files  (SkNode              *self,
                                                const char * const  *files);
gboolean             sk_node_get_position      (SkNode              *self,
                                                double              *x,
                                                double              *y);
void                 sk_node_set_position      (SkNode              *self,
                                                double               x,
                                                double               y);
SkNodeState          sk_node_get_state         (SkNode              *self);
void                 sk_node_set_state         (SkNode              *self,
                                                SkNodeState          state);
const char          *sk_node_get_error_text    (SkNode              *self);
const char          *sk_node_get_error_detail  (SkNode              *self);
void                 sk_node_set_error         (SkNode              *self,
                                                const char          *text,
                                                const char          *detail);

gboolean             sk_node_get_network       (SkNode              *self);
char               **sk_node_get_read_paths    (SkNode              *self);
void                 sk_node_set_permissions   (SkNode              *self,
                                                gboolean             network,
                                                const char * const  *read_paths);
void                 sk_node_set_approval      (SkNode              *self,
                                                gboolean             approval);
void                 sk_node_set_condition     (SkNode              *self,
                                                const char          *prior_id,
                                                const char          *condition);
void                 sk_node_get_tokens        (SkNode              *self,
                                                guint64             *prompt_tokens,
                                                guint64             *completion_tokens);
void                 sk_node_add_tokens        (SkNode              *self,
                                                guint64              prompt_tokens,
                                                guint64              completion_tokens);

const char          *sk_node_state_to_string   (SkNodeState          state);
const char          *sk_node_state_describe    (SkNodeState          state);
const char          *sk_node_state_label       (SkNodeState          state);
const char          *sk_node_state_color       (SkNodeState          state);
gboolean             sk_node_state_is_finished (SkNodeState          state);
char                *sk_node_key_from_name     (const char          *name);

G_END_DECLS
