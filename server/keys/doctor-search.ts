import { z } from 'zod';
import type { Backend } from '../backend/client.ts';
import { tenantPath } from '../../contracts/backend/tenants.ts';

const doctor = z.object({ id: z.number().int(), nome: z.string() });

/** Lower case, without accents: "Joao" finds "João". */
const fold = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Ids of the clinic's doctors whose name contains `q` (any case, any accents), for the keys list's search
 * (issue 31 § 3): doctors are the clinic's data, keys only hold the id. A backend that cannot answer leaves the
 * search to the key's own fields (label, prefix, ids) rather than failing the list.
 */
export async function doctorIdsMatching(backend: Backend, slug: string, q: string | undefined): Promise<number[]> {
  const text = q?.trim();
  if (!text || text.length < 2 || /^#?\d+$/.test(text) || /^[a-z]{2}_live_/i.test(text)) return [];
  try {
    const result = await backend.call(
      { method: 'GET', path: tenantPath(slug, '/medicos'), query: { limit: 1000 } },
      z.array(doctor),
    );
    const wanted = fold(text);
    return result.data.filter((d) => fold(d.nome).includes(wanted)).map((d) => d.id);
  } catch {
    return [];
  }
}
