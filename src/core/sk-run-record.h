/* sk-run-record.h
 *
 * Copyright 2026 The Skele-Code developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "sk-node.h"
#include "sk-project.h"

G_BEGIN_DECLS

/**
 * SkFingerprints:
 *
 * The fingerprints of a list of nodes, computed from a copy of what they
 * cover, so that the hashing can run in a thread without touching the
 * model.
 */
typedef struct _SkFingerprints SkFingerprints;

SkFingerprints *sk_fingerprints_new            (SkProject            *project,
                                                GPtrArray            *order,
                                                const char           *python);
void            sk_fingerprints_free           (SkFingerprints       *self);
void            sk_fingerprints_compute        (SkFingerprints       *self);
void            sk_fingerprints_compute_async  (SkFingerprints       *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
SkFingerprints *sk_fingerprints_compute_finish (GAsyncResult         *result,
                                                GError              **error);
const char     *sk_fingerprints_get            (SkFingerprints       *self,
                                                guint                 position);
void            sk_fingerprints_set_inputs     (SkFingerprints       *self,
                                                const char           *inputs);
const char     *sk_fingerprints_get_item_base  (SkFingerprints       *self,
                                                guint                 position);
const char     *sk_fingerprints_get_problem    (SkFingerprints       *self,
                                                guint                 position);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SkFingerprints, sk_fingerprints_free)

char           *sk_run_record_fingerprint      (SkProject            *project,
                                                SkNode               *node,
                                                const char           *python);

/**
 * SkRunRecord:
 * @status: `success`, `skipped`, `cancelled` or `failed`
 * @fingerprint: (nullable): the fingerprint the node ran with
 * @in_memory: whether it ran in the in-memory worker
 * @seconds: how long it took
 * @error: (nullable): why it failed, in plain language
 * @detail: (nullable): the traceback and the end of the error output
 * @output_keys: (nullable): the harness's description of the outputs
 *
 * What a node's record says of its last run, besides the outputs the node
 * itself holds.
 */
typedef struct
{
  const char *status;
  const char *fingerprint;
  gboolean    in_memory;
  double      seconds;
  const char *error;
  const char *detail;
  JsonNode   *output_keys;
} SkRunRecord;

JsonObject     *sk_run_record_read             (const char           *step_folder,
                                                const char           *key);
gboolean        sk_run_record_is_usable        (JsonObject           *record,
                                                const char           *step_folder,
                                                const char           *key,
                                                const char           *fingerprint);
gboolean        sk_run_record_withdraw         (const char           *step_folder,
                                                const char           *key,
                                                GError              **error);
gboolean        sk_run_record_write            (const char           *step_folder,
                                                SkNode               *node,
                                                const SkRunRecord    *record,
                                                GError              **error);
void            sk_run_record_restore_outputs  (JsonObject           *record,
                                                SkNode               *node);

GHashTable     *sk_run_record_snapshot_folder  (const char           *step_folder);
GStrv           sk_run_record_changed_files    (const char           *step_folder,
                                                const char           *key,
                                                const char * const   *inputs,
                                                GHashTable           *snapshot);
char           *sk_run_record_read_summary     (const char           *step_folder,
                                                const char           *key,
                                                GHashTable           *snapshot,
                                                GError              **error);

G_END_DECLS
