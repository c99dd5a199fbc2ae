import { z } from 'zod';
import { dateString } from '../schemas/params.ts';
import { wireDocs } from '../schemas/wire.ts';

/**
 * gateway → backend-sim: how backend-sim reads a query or body the gateway validated with its public schema
 * (contracts/schemas) and forwarded, JSON-encoded or as a query string (server/backend/client.ts `buildQuery`).
 * Each family's file here derives backend-sim's schema from the public one, so a field is declared once; where
 * backend-sim reads a field more loosely, the override says why. test/contracts/backend-wire.test.ts checks that
 * every value the public schema accepts, once forwarded, parses here.
 */

/**
 * The public object's fields without its closedness, its blocked fields and its cross-field rules: the gateway
 * refused unknown and blocked fields and checked those rules before forwarding; backend-sim drops what it does not
 * name. `lenient` replaces fields.
 */
export const forwarded = <S extends z.ZodRawShape, L extends z.ZodRawShape = Record<never, never>>(
  publicObject: z.ZodObject<S>,
  lenient: L = {} as L,
) => {
  const named = Object.entries(publicObject.shape).filter(([, field]) => !wireDocs.get(field)?.blocked);
  return z.object(Object.fromEntries(named) as S).extend(lenient);
};

/**
 * A `0`/`1` query flag as the gateway writes it (`buildQuery` turns the public schema's boolean into `1` or `0`):
 * backend-sim keeps the text and compares columns with `Number(flag)`.
 */
export const queryFlag = z.enum(['0', '1']);

/**
 * The largest page backend-sim serves. The public API caps `limit` at 200; the gateway's own calls ask for up to
 * 1000 rows: the whole catalogs (server/routes/v1/catalogos.ts), the console's doctor, unit and health-plan
 * pickers (server/admin/routes/tenants.ts) and the CLI's doctor list (appliance/cli/main.ts).
 */
export const BACKEND_PAGE_MAX = 1000;

/** `limit` and `offset` of a list: 50 rows unless asked, at most BACKEND_PAGE_MAX. */
export const backendPage = {
  limit: z.coerce.number().int().min(1).max(BACKEND_PAGE_MAX).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};

/** Lists the spec does not paginate: everything (up to BACKEND_PAGE_MAX) unless the gateway sends limit/offset. */
export const wholeList = {
  limit: z.coerce.number().int().min(1).max(BACKEND_PAGE_MAX).default(BACKEND_PAGE_MAX),
  offset: z.coerce.number().int().min(0).default(0),
};

/**
 * A birth date: a real calendar day. The gateway checked the 130-years-to-today window against its clock a moment
 * earlier; checking it again here could refuse, after midnight, a body the gateway accepted before it.
 */
export const forwardedBirthDate = dateString;

/** A CPF: any text. Its check digits are backend-sim's own 400 VAL_BACKEND, as the clinic's backend answers them. */
export const forwardedCpf = z.string().nullable().optional();
