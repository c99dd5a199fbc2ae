import { createRequire } from 'node:module';
import { finished, Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';

const require = createRequire(import.meta.url);
// s3rver's own error type: thrown from a middleware it becomes the S3 XML error body with its status.
const S3Error = require('@20minutes/s3rver/lib/models/error.js') as new (
  code: string,
  message: string,
  detail?: Record<string, unknown>,
) => Error;

/** The part of Koa's context this guard reads (s3rver is a Koa app; koa's types are not installed). */
export interface KoaContext {
  method: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  /** What s3rver answers with; for an object GET, the file's read stream (Koa writes it after the middleware returned). */
  body: unknown;
  get(header: string): string;
  response: { get(header: string): string };
  res: ServerResponse;
}
type Next = () => Promise<unknown>;

const SIGV4_AUTHORIZATION = /^AWS4-HMAC-SHA256 \S/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
/** SigV4's longest presigned validity (7 days). */
const MAX_PRESIGN_SECONDS = 604_800;
/** Clock skew tolerated on a presigned URL's X-Amz-Date (S3's own allowance for signed requests). */
const ALLOWED_SKEW_MS = 15 * 60_000;
/**
 * How long a GET waits for the download holding its URL to end before it is refused: a client that
 * cut a download and resumes it at once may get here before the server has seen the first connection
 * close (which releases the URL).
 */
export const IN_FLIGHT_WAIT_MS = 2000;

const accessDenied = (message = 'Access Denied') => new S3Error('AccessDenied', message);

interface PresignedQuery {
  signature: string;
  /** Epoch ms after which the URL is refused: here on the appliance clock, by s3rver on the real one. */
  expiresAt: number;
  signedAt: number;
}

/**
 * A SigV4 presigned query, checked for shape only (s3rver verifies the signature; the expiry is checked by both).
 * `null` when the request carries no query signature; throws when it carries a malformed one.
 */
function presignedQuery(query: KoaContext['query']): PresignedQuery | null {
  const v2 = 'Signature' in query || 'AWSAccessKeyId' in query;
  const v4 = 'X-Amz-Signature' in query || 'X-Amz-Algorithm' in query;
  // SigV2 is not accepted: the services and the presigner only sign with SigV4.
  if (v2) throw accessDenied();
  if (!v4) return null;
  const {
    'X-Amz-Algorithm': algorithm,
    'X-Amz-Signature': signature,
    'X-Amz-Date': date,
    'X-Amz-Expires': expires,
  } = query;
  const parts = typeof date === 'string' ? AMZ_DATE.exec(date) : null;
  if (
    algorithm !== 'AWS4-HMAC-SHA256' ||
    typeof signature !== 'string' ||
    !/^[0-9a-f]{64}$/.test(signature) ||
    !parts ||
    typeof expires !== 'string' ||
    !/^\d{1,6}$/.test(expires) ||
    Number(expires) > MAX_PRESIGN_SECONDS
  ) {
    // s3rver would let a non-numeric X-Amz-Expires never expire; refuse any malformed query here.
    throw accessDenied();
  }
  const [, y, mo, d, h, mi, s] = parts.map(Number);
  const signedAt = Date.UTC(y, mo - 1, d, h, mi, s);
  return { signature, signedAt, expiresAt: signedAt + Number(expires) * 1000 };
}

/**
 * Presigned GET signatures taken by a download, the one under way or the one that delivered the
 * object, kept until their URL would expire anyway.
 */
export class UsedSignatures {
  private readonly used = new Map<string, number>();
  /** Signatures whose download is under way, with what settles when it ends (delivered or released). */
  private readonly downloading = new Map<string, { ended: Promise<void>; end: () => void }>();
  private addsSinceSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  has(signature: string): boolean {
    const expiresAt = this.used.get(signature);
    return expiresAt !== undefined && expiresAt >= this.now();
  }

  /** Takes the signature for one download: false when another holds it. Check and take in one synchronous step. */
  claim(signature: string, expiresAt: number): boolean {
    if (this.has(signature)) return false;
    this.add(signature, expiresAt);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.downloading.set(signature, { ended, end });
    return true;
  }

  /** The download holding it delivered the object: the signature stays used. */
  delivered(signature: string): void {
    this.downloading.get(signature)?.end();
    this.downloading.delete(signature);
  }

  /** The download holding it did not deliver: the URL may be used again. */
  release(signature: string): void {
    this.used.delete(signature);
    this.delivered(signature);
  }

  /** Settles when the download holding the signature ends; undefined when none is under way. */
  downloadEnded(signature: string): Promise<void> | undefined {
    return this.downloading.get(signature)?.ended;
  }

  add(signature: string, expiresAt: number): void {
    this.used.set(signature, expiresAt);
    // Entries are only needed while the URL is otherwise valid; an occasional sweep bounds the map.
    if (++this.addsSinceSweep >= 256) {
      this.addsSinceSweep = 0;
      const now = this.now();
      for (const [key, until] of this.used) if (until < now) this.used.delete(key);
    }
  }

  get size(): number {
    return this.used.size;
  }
}

/** A 200, or a 206 whose range ends at the object's last byte: the client now holds the end of the file. */
function deliversLastByte(ctx: KoaContext): boolean {
  if (ctx.status === 200) return true;
  if (ctx.status !== 206) return false;
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(ctx.response.get('Content-Range'));
  return range !== null && Number(range[2]) === Number(range[3]) - 1;
}

/**
 * Koa middleware run by the embedded S3 before its own: only SigV4-signed requests get through,
 * either an `Authorization: AWS4-HMAC-SHA256 …` header (the services' credentials) or a presigned
 * query; s3rver then verifies the signature and the expiry (a tampered or expired URL is its 403).
 * Anything else (anonymous GET/PUT/DELETE/listing, SigV2, CORS preflight) is 403 AccessDenied.
 *
 * Presigned GET URLs are single-use (docs/decisions.md § Storage and presigned URLs), enforced when a
 * download starts: a GET that is to deliver the object's last byte (a 200, or a 206 whose range ends
 * there) takes the signature once s3rver has opened the object and before Koa writes its first byte,
 * in one synchronous step, so of simultaneous GETs exactly one gets the file and the others are 403.
 * After it delivered, every GET with the signature is refused; while it runs, another GET waits for its
 * end (IN_FLIGHT_WAIT_MS at most) and is then refused, unless it did not deliver. A download that does
 * not deliver (the storage read fails, the connection is cut) releases the signature, so a client may
 * retry or resume it with a Range request on the same URL; ranges short of the last byte take nothing.
 */
export function signedRequestsOnly(usedSignatures: UsedSignatures, now: () => number = Date.now) {
  return async function signedRequestsOnly(ctx: KoaContext, next: Next): Promise<void> {
    const presigned = presignedQuery(ctx.query);
    const headerSigned = SIGV4_AUTHORIZATION.test(ctx.get('authorization'));
    if (presigned === null && !headerSigned) throw accessDenied();
    // s3rver answers both mechanisms at once with a 400; one refusal status for every unsigned shape.
    if (presigned !== null && headerSigned) throw accessDenied();
    if (presigned === null) {
      await next();
      return;
    }
    // s3rver ignores a presigned date in the future, which would stretch a URL's life past its expiry.
    if (presigned.signedAt - ALLOWED_SKEW_MS > now()) throw accessDenied('Request is not valid yet');
    // s3rver checks the expiry against the real clock; `now` is the appliance clock, which an operator
    // may have moved ahead in development mode (server/clock.ts). Same refusal as s3rver's.
    if (now() > presigned.expiresAt) throw accessDenied('Request has expired');
    if (ctx.method === 'GET') {
      const holder = usedSignatures.downloadEnded(presigned.signature);
      if (holder) await waitAtMost(holder, IN_FLIGHT_WAIT_MS);
      if (usedSignatures.has(presigned.signature))
        throw accessDenied('This presigned URL was already used; request a new one');
    }
    await next();
    if (ctx.method !== 'GET' || !deliversLastByte(ctx)) return;
    const body = ctx.body instanceof Readable ? ctx.body : null;
    if (!usedSignatures.claim(presigned.signature, presigned.expiresAt)) {
      // Another GET took it while s3rver was opening the object for this one: nothing was sent yet.
      body?.destroy();
      throw accessDenied('This presigned URL was already used; request a new one');
    }
    const status = ctx.status;
    // Koa writes the body after the middleware returns. A read error before the first byte becomes
    // s3rver's 500 (another status); once the headers are out Koa can only leave the answer hanging,
    // so the connection is cut. Either way the object was not delivered and the URL is free again.
    body?.once('error', () => {
      if (ctx.res.headersSent) ctx.res.destroy();
    });
    finished(ctx.res, (error) => {
      if (error || ctx.res.statusCode !== status) usedSignatures.release(presigned.signature);
      else usedSignatures.delivered(presigned.signature);
    });
  };
}

async function waitAtMost(settles: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settles, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
