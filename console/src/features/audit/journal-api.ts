import { useQuery } from '@tanstack/react-query';
import { receivedAnswer } from '../../../../contracts/admin/journal.ts';
import { API_BASE, ApiError, api, toQuery } from '../../lib/api.ts';

export type { NearMiss, ReceivedAnswer, ReceivedEntry } from '../../../../contracts/admin/journal.ts';

/** The journal query's filters (`GET /tenants/:slug/journal/received` and `/journal/har`), by their API names. */
export type JournalFilters = Partial<
  Record<'chave_id' | 'method' | 'path' | 'status' | 'code' | 'since' | 'until', string>
>;

/** The audit page's filters as the journal query's: the clinic apart, `error_code` → `code`, from/to → since/until. */
export function journalFiltersOf(audit: Record<string, string>): { slug: string | undefined; filters: JournalFilters } {
  return {
    slug: audit.tenant || undefined,
    filters: {
      chave_id: audit.chave_id,
      method: audit.method,
      path: audit.path,
      status: audit.status,
      code: audit.error_code,
      since: audit.from,
      until: audit.to,
    },
  };
}

const journalPath = (slug: string, what: 'received' | 'har', filters: JournalFilters) =>
  `/tenants/${encodeURIComponent(slug)}/journal/${what}${toQuery(filters)}`;

/** What the gateway received for a clinic, run on demand (`run` counts the presses of the form's button). */
export const useReceived = (slug: string | undefined, filters: JournalFilters, run: number) =>
  useQuery({
    queryKey: ['journal-received', slug, filters, run],
    queryFn: () => api(receivedAnswer, 'GET', journalPath(slug!, 'received', filters)),
    enabled: slug !== undefined && run > 0,
    staleTime: 0,
    retry: false,
  });

/**
 * Downloads the clinic's HAR for the filters: the gateway answers the file itself (not the envelope), so it is
 * fetched here and handed to the browser as a download under the name the gateway gave it.
 */
export async function downloadHar(slug: string, filters: JournalFilters): Promise<void> {
  let response: Response;
  try {
    response = await fetch(API_BASE + journalPath(slug, 'har', filters), {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
  } catch {
    throw new ApiError('NETWORK', 0, 'The gateway could not be reached. Is it running?');
  }
  if (!response.ok) {
    const payload = (await response.json().catch(() => null)) as {
      error?: { code: string; message: string; details: Record<string, unknown> | null };
      meta?: { request_id?: string };
    } | null;
    throw new ApiError(
      payload?.error?.code ?? 'BAD_RESPONSE',
      response.status,
      payload?.error?.message ?? `Unexpected response from the gateway (HTTP ${response.status}).`,
      payload?.error?.details ?? null,
      payload?.meta?.request_id ?? null,
    );
  }
  const blob = await response.blob();
  const name =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `journal-${slug}.har`;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
