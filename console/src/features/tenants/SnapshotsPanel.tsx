import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { API_BASE, api } from '../../lib/api.ts';
import { Button, ErrorBanner, Field } from '../../lib/ui.tsx';
import { useCanWrite } from '../../lib/role.ts';
import {
  snapshotDeleted,
  snapshotImportResult,
  snapshotRestoreResult,
  snapshotSaved,
  snapshotView,
} from '../../../../contracts/admin/snapshots.ts';

const base = (slug: string) => `/tenants/${encodeURIComponent(slug)}/snapshots`;

/**
 * A clinic's named snapshots (issue 30 § 2): save under a name, list, restore (the slug typed back, as for a
 * reset), delete, export (a download of the archive) and import (a file upload into this clinic).
 */
export function SnapshotsPanel({ slug }: { slug: string }) {
  const client = useQueryClient();
  const canWrite = useCanWrite();
  const list = useQuery({
    queryKey: ['snapshots', slug],
    queryFn: () => api(z.array(snapshotView), 'GET', base(slug)),
  });
  const refresh = () => void client.invalidateQueries();
  const save = useMutation({
    mutationFn: (name: string) => api(snapshotSaved, 'POST', base(slug), { name }),
    onSuccess: refresh,
  });
  const restore = useMutation({
    mutationFn: (name: string) =>
      api(snapshotRestoreResult, 'POST', `${base(slug)}/${encodeURIComponent(name)}/restore`, {}),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (name: string) => api(snapshotDeleted, 'DELETE', `${base(slug)}/${encodeURIComponent(name)}`),
    onSuccess: refresh,
  });
  const upload = useMutation({
    mutationFn: (file: File) => api(snapshotImportResult, 'POST', `${base(slug)}/import`, file),
    onSuccess: refresh,
  });
  const [name, setName] = useState('');
  const [restoring, setRestoring] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const [file, setFile] = useState<File | null>(null);

  const submitSave = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) save.mutate(name.trim(), { onSuccess: () => setName('') });
  };
  const submitRestore = (event: FormEvent) => {
    event.preventDefault();
    if (restoring && typed.trim() === slug)
      restore.mutate(restoring, {
        onSuccess: () => {
          setRestoring(null);
          setTyped('');
        },
      });
  };

  return (
    <div data-testid="snapshots-panel">
      <ErrorBanner
        error={list.error ?? save.error ?? restore.error ?? remove.error ?? upload.error}
        title="Snapshot action failed"
      />
      {restore.data && (
        <div className="banner banner-info" role="status" data-testid="snapshot-restored">
          Restored from {restore.data.name} in {restore.data.duration_ms} ms: {restore.data.rows_restored} rows,{' '}
          {restore.data.files_restored} file(s); {restore.data.idempotency_keys_removed} idempotency key(s) forgotten.
        </div>
      )}
      {upload.data && (
        <div className="banner banner-info" role="status" data-testid="snapshot-imported">
          Imported {upload.data.name} (from {upload.data.source_slug}, release {upload.data.source_release}):{' '}
          {upload.data.rows_restored} rows.
        </div>
      )}
      {canWrite && (
        <form onSubmit={submitSave} aria-label="Save snapshot" style={{ display: 'flex', gap: 8, alignItems: 'end' }}>
          <Field id="snapshot-name" label="Snapshot name">
            <input id="snapshot-name" value={name} autoComplete="off" onChange={(e) => setName(e.target.value)} />
          </Field>
          <Button type="submit" variant="primary" disabled={!name.trim() || save.isPending}>
            {save.isPending ? 'Saving…' : 'Save snapshot'}
          </Button>
        </form>
      )}
      <table className="table" aria-label="Snapshots">
        <thead>
          <tr>
            <th>Name</th>
            <th>Saved</th>
            <th>Rows</th>
            <th>Files</th>
            <th>Release</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((s) => (
            <tr key={s.name} data-testid={`snapshot-${s.name}`}>
              <td className="mono">{s.name}</td>
              <td className="nowrap">{s.created_at}</td>
              <td>{s.rows}</td>
              <td>{s.files}</td>
              <td>{s.release}</td>
              <td className="nowrap">
                {canWrite && (
                  <>
                    <a
                      className="btn btn-secondary btn-sm"
                      href={`${API_BASE}${base(slug)}/${encodeURIComponent(s.name)}/export`}
                      download
                      aria-label={`Export ${s.name}`}
                    >
                      Export
                    </a>{' '}
                    <Button
                      className="btn-sm"
                      variant="danger"
                      aria-label={`Restore ${s.name}`}
                      onClick={() => setRestoring(s.name)}
                    >
                      Restore
                    </Button>{' '}
                    <Button className="btn-sm" aria-label={`Delete ${s.name}`} onClick={() => remove.mutate(s.name)}>
                      Delete
                    </Button>
                  </>
                )}
              </td>
            </tr>
          ))}
          {list.data?.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                No snapshots yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {restoring && (
        <form onSubmit={submitRestore} aria-label="Restore snapshot" className="banner banner-warn">
          <strong>
            Restore {slug} to {restoring}? Everything written since is lost; keys stay valid and the journal is kept.
          </strong>
          <Field id="snapshot-restore-confirm" label={`Type ${slug} to confirm`}>
            <input
              id="snapshot-restore-confirm"
              value={typed}
              autoComplete="off"
              onChange={(e) => setTyped(e.target.value)}
            />
          </Field>
          <Button type="submit" variant="danger" disabled={typed.trim() !== slug || restore.isPending}>
            {restore.isPending ? 'Restoring…' : 'Restore snapshot'}
          </Button>{' '}
          <Button onClick={() => setRestoring(null)}>Cancel</Button>
        </form>
      )}
      {canWrite && (
        <form
          aria-label="Import snapshot"
          onSubmit={(e) => {
            e.preventDefault();
            if (file) upload.mutate(file);
          }}
          style={{ display: 'flex', gap: 8, alignItems: 'end', marginTop: 12 }}
        >
          <Field id="snapshot-file" label="Import an archive into this clinic">
            <input id="snapshot-file" type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </Field>
          <Button type="submit" disabled={!file || upload.isPending}>
            {upload.isPending ? 'Importing…' : 'Import snapshot'}
          </Button>
        </form>
      )}
    </div>
  );
}
