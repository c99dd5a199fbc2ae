import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { z } from 'zod';
import { removedAll, removedById } from '../../../contracts/admin/common.ts';
import { api } from './api.ts';
import { useFieldErrors } from './forms.tsx';
import { useCanWrite } from './role.ts';
import { ListTable, type Column } from './table.tsx';
import { Button, EmptyState, ErrorBanner, PageHeader, SectionCard } from './ui.tsx';

/**
 * A console API list of faults switched on for testing (`/faults`, `/storage-faults`): GET lists them (polled
 * every 5 s, since hits keep counting), POST adds one, DELETE `/:id` removes one, DELETE removes all.
 */
export function useFaultSwitches<V extends z.ZodType<{ id: number }>, I>(path: string, view: V) {
  const client = useQueryClient();
  const queryKey = [path.slice(1)];
  const onSuccess = () => void client.invalidateQueries({ queryKey });
  return {
    faults: useQuery({ queryKey, queryFn: () => api(z.array(view), 'GET', path), refetchInterval: 5000 }),
    add: useMutation({ mutationFn: (input: I) => api(view, 'POST', path, input), onSuccess }),
    remove: useMutation({ mutationFn: (id: number) => api(removedById, 'DELETE', `${path}/${id}`), onSuccess }),
    clear: useMutation({ mutationFn: () => api(removedAll, 'DELETE', path), onSuccess }),
  };
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A screen of faults switched on for testing (the clinic backend's, the file storage's): the form that turns
 * one on, the active ones, and turning one or all off. Its words follow `noun` ("fault": "New fault", "Turn
 * fault on", "Turn fault 3 off", "Turn all faults off"…). The form's `input` is checked by `schema` before it
 * is sent. A viewer sees the list only, and an empty one says so: switching is an admin's (the console API
 * refuses a viewer's write).
 */
export function FaultSwitchboard<F extends { id: number }, S extends z.ZodType>({
  title,
  description,
  noun,
  switches: { faults, add, remove, clear },
  schema,
  input,
  fields,
  empty,
  testId,
  columns,
  cells,
}: {
  title: string;
  description: string;
  noun: string;
  switches: {
    faults: { data: F[] | undefined; isPending: boolean; error: unknown };
    add: {
      mutate: (input: z.output<S>, options: { onError: (error: unknown) => void }) => void;
      isPending: boolean;
      error: unknown;
    };
    remove: { mutate: (id: number) => void; error: unknown };
    clear: { mutate: () => void; isPending: boolean; error: unknown };
  };
  schema: S;
  input: unknown;
  /** The new fault's fields, in the form's grid, with the errors of the last try. */
  fields: (errors: Record<string, string>) => ReactNode;
  /** The empty list: what it means, and when a new one takes effect ("on the next request"). */
  empty: { title: string; takesEffect: string };
  testId: string;
  /** The table's columns and a fault's cells, before the button that turns it off. */
  columns: Column[];
  cells: (fault: F) => ReactNode;
}) {
  const canWrite = useCanWrite();
  const { errors, submit } = useFieldErrors();
  const turnOn = submit(schema, input, (checked, onError) => add.mutate(checked, { onError }));
  return (
    <>
      <PageHeader
        title={title}
        description={description}
        actions={
          canWrite && faults.data?.length ? (
            <Button variant="danger" onClick={() => clear.mutate()} disabled={clear.isPending}>
              {`Turn all ${noun}s off`}
            </Button>
          ) : null
        }
      />
      {canWrite && (
        <form
          className="card card-pad"
          onSubmit={turnOn}
          noValidate
          aria-label={`New ${noun}`}
          style={{ marginBottom: 16 }}
        >
          <ErrorBanner error={add.error} title={`The ${noun} was not added`} />
          <div className="grid-form">{fields(errors)}</div>
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={add.isPending}>
              {`Turn ${noun} on`}
            </Button>
          </div>
        </form>
      )}
      <ErrorBanner
        error={faults.error ?? remove.error ?? clear.error}
        title={`${capitalized(noun)}s could not be loaded or changed`}
      />
      <SectionCard
        label={`Active ${noun}s`}
        title={`Active ${noun}s`}
        meta={faults.data && <span className="muted">{faults.data.length} active · refreshed every 5 s</span>}
      >
        <ListTable
          pending={faults.isPending}
          rows={faults.data}
          empty={
            <EmptyState title={empty.title}>
              {canWrite
                ? `Add one above; it takes effect ${empty.takesEffect}.`
                : `${capitalized(noun)}s are read-only for a viewer: an admin can turn one on here.`}
            </EmptyState>
          }
          testId={testId}
          columns={columns}
          rowKey={(f) => f.id}
          row={(f) => ({ 'data-fault-id': f.id })}
          cells={cells}
          actions={(f) =>
            canWrite && (
              <Button className="btn-sm" onClick={() => remove.mutate(f.id)} aria-label={`Turn ${noun} ${f.id} off`}>
                Turn off
              </Button>
            )
          }
        />
      </SectionCard>
    </>
  );
}
