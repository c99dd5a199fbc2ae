import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { z } from 'zod';
import { tenantView } from '../../../contracts/admin/tenants.ts';
import { api } from './api.ts';
import { Badge, breakable, statusTone } from './ui.tsx';

/**
 * One vocabulary for every screen (issue 22 § 2): how a clinic is named, how a status reads, how a code
 * is shown. Screens import these instead of writing their own words.
 */

export interface ClinicRef {
  slug: string;
  nome: string;
}

/** In a select or a sentence: the name an operator knows, the slug an integrator types. */
export const clinicOptionLabel = (clinic: ClinicRef): string => `${clinic.nome} (${clinic.slug})`;

/** Long labels end in "…" inside a select (the whole one in the option's title): the select stays readable. */
export const shorten = (text: string, max = 36): string =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

/** A key in a select: `#12 LIS integration – production`, the masked key when it has no label. */
export const keyOptionLabel = (key: {
  id: number;
  label: string;
  api_key_masked: string;
  status?: string;
  expires_at?: string | null;
  expired?: boolean;
}): string =>
  `#${key.id} ${shorten(key.label || key.api_key_masked)}${
    key.status === 'revoked'
      ? ' (Revoked)'
      : key.expired
        ? ' (Expired)'
        : key.expires_at
          ? ` (expires ${key.expires_at.slice(0, 10)})`
          : ''
  }`;

/** Every clinic of the appliance, once for all screens (`GET /tenants`, the cache every feature shares). */
export function useClinicDirectory() {
  const query = useQuery({
    queryKey: ['tenants'],
    queryFn: () => api(z.array(tenantView), 'GET', '/tenants'),
    staleTime: 30_000,
  });
  const names = new Map((query.data ?? []).map((c) => [c.slug, c.nome]));
  return { ...query, nameOf: (slug: string) => names.get(slug) };
}

/**
 * In a table: the name, the slug under it in small type (the slug alone when the clinic no longer exists).
 * `compact`: the name only, the slug in its tooltip (dense tables such as the audit log).
 */
export function ClinicName({
  slug,
  nome,
  compact,
}: {
  slug: string | null | undefined;
  nome?: string;
  compact?: boolean;
}) {
  if (!slug) return <span className="muted">—</span>;
  return (
    <span className="clinic-name" title={slug} data-slug={slug}>
      {nome ? <span className="clinic-nome">{nome}</span> : null}
      {(!nome || !compact) && <span className="clinic-slug mono">{slug}</span>}
    </span>
  );
}

/** Keys, clinics and operator tokens share these words. */
const STATUSES: Record<string, { label: string; tone: 'ok' | 'warn' | 'bad' | 'info' | 'neutral' }> = {
  active: { label: 'Active', tone: 'ok' },
  revoked: { label: 'Revoked', tone: 'bad' },
  expired: { label: 'Expired', tone: 'warn' },
  inactive: { label: 'Inactive', tone: 'warn' },
  disabled: { label: 'Disabled', tone: 'warn' },
  legacy: { label: 'Legacy', tone: 'warn' },
  sandbox: { label: 'Sandbox', tone: 'info' },
};

export const statusLabel = (status: string): string =>
  STATUSES[status]?.label ?? status.charAt(0).toUpperCase() + status.slice(1).replace(/_/g, ' ');

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUSES[status]?.tone ?? 'neutral'}>{statusLabel(status)}</Badge>;
}

const HTTP_REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  302: 'Found (redirect)',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const httpReason = (status: number): string => HTTP_REASONS[status] ?? '';

/** An HTTP status as a badge; its reason phrase in the tooltip (and the accessible name stays the number). */
export function HttpStatus({ status }: { status: number }) {
  return (
    <span title={`${status} ${httpReason(status)}`.trim()}>
      <Badge tone={statusTone(status)}>{status}</Badge>
    </span>
  );
}

/**
 * Pieces of a code between spaces up to this long are read whole, never broken across lines (a browser breaks
 * `clinica-b` after its hyphen, `AUTH_TIMESTAMP_EXPIRED` at its <wbr>): error codes, slugs, key prefixes, short
 * paths. e2e/layout.spec.ts checks every screen with the same bound.
 */
export const SHORT_CODE_MAX = 32;

/**
 * A code, slug or path (AUTH_TIMESTAMP_EXPIRED, GET /v1/pacientes/12/prontuarios): a line may break at its
 * spaces; a piece up to SHORT_CODE_MAX stays whole, a longer one breaks at its punctuation (`breakable`, ui.tsx).
 */
export function Code({ children, className = '' }: { children: string; className?: string }) {
  let at = 0;
  const pieces = children.split(/(\s+)/).map((text) => {
    const start = at;
    at += text.length;
    return { text, start };
  });
  return (
    <code className={`code ${className}`.trim()}>
      {pieces.map(({ text, start }) =>
        !text || /^\s/.test(text) ? (
          text
        ) : text.length <= SHORT_CODE_MAX ? (
          <span key={start} className="nowrap">
            {text}
          </span>
        ) : (
          <Fragment key={start}>{breakable(text)}</Fragment>
        ),
      )}
    </code>
  );
}
