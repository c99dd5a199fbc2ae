import { useEffect, useMemo, useState } from 'react';
import { useClockOffset, useFullApiKey, useTenantKeys, useTenants } from './api.ts';
import { curlCommand, signature, stringToSign, targetAsSent } from './signing.ts';

export const WINDOW_SECONDS = 300;

/**
 * The request being built on the playground: the key it is signed with, what is signed, and what follows from
 * it (the string to sign, its signature in the browser, the curl, what looks wrong).
 */
export function usePlaygroundDraft() {
  const tenants = useTenants();
  const offset = useClockOffset();
  const [tenant, setTenant] = useState('');
  const keys = useTenantKeys(tenant);
  const [keyId, setKeyId] = useState('');
  const fullKey = useFullApiKey(keyId);
  const [apiKey, setApiKey] = useState('');
  // The secret lives in the page's state only: never stored, never sent (only its signature is).
  const [secret, setSecret] = useState('');
  const [method, setMethod] = useState('GET');
  const [path, setPath] = useState('/v1/ping');
  const [timestamp, setTimestamp] = useState('');
  const [body, setBody] = useState('');
  const [result, setResult] = useState<{ hex: string; engine: string } | null>(null);

  const applianceNow = () => String(Math.floor(Date.now() / 1000) + (offset.data ?? 0));
  // Default timestamp: now on the appliance clock (real time plus the clock page's offset).
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the offset first arrives; later the timestamp is the operator's
  useEffect(() => {
    if (!timestamp && offset.isFetched) setTimestamp(applianceNow());
  }, [offset.isFetched]);
  // Choosing a key fills X-API-Key with it (still editable).
  useEffect(() => {
    if (fullKey.data) setApiKey(fullKey.data.api_key);
  }, [fullKey.data]);

  const chosenKey = keys.data?.find((k) => String(k.id) === keyId);
  const sendsBody = method !== 'GET';
  const rawBody = sendsBody ? body : '';
  const origin = window.location.origin;
  let sentTarget = path;
  try {
    sentTarget = targetAsSent(path, origin);
  } catch {
    // Not a URL at all: the problems below say why.
  }
  const payload = stringToSign(timestamp, method, path, rawBody);
  const problems = useMemo(() => {
    const list: string[] = [];
    if (!/^\d+$/.test(timestamp)) list.push('The timestamp must be whole Unix seconds.');
    if (!path.startsWith('/'))
      list.push('The path starts with “/”: the request target as sent, without scheme and host.');
    else if (sentTarget !== path)
      list.push(
        `A browser sends this path as ${sentTarget}: Send signs that; a client sending it as typed signs what it sends.`,
      );
    if (secret && !/^[0-9a-f]{64}$/.test(secret))
      list.push('A secret is 64 lowercase hex characters: check for spaces or a missing part.');
    return list;
  }, [timestamp, path, sentTarget, secret]);

  useEffect(() => {
    let live = true;
    if (!secret) return setResult(null);
    void signature(secret, payload).then((r) => live && setResult(r));
    return () => {
      live = false;
    };
  }, [secret, payload]);

  const skew = /^\d+$/.test(timestamp) ? Number(timestamp) - Number(applianceNow()) : 0;
  const curl = result
    ? curlCommand({ origin, method, pathAndQuery: path, body: rawBody, apiKey, timestamp, signature: result.hex })
    : '';

  return {
    tenants,
    keys,
    fullKey,
    chosenKey,
    tenant,
    /** A clinic chosen: its keys are listed, the key chosen before is not kept. */
    chooseTenant: (slug: string) => {
      setTenant(slug);
      setKeyId('');
    },
    keyId,
    setKeyId,
    apiKey,
    setApiKey,
    secret,
    setSecret,
    method,
    setMethod,
    path,
    setPath,
    timestamp,
    setTimestamp,
    body,
    setBody,
    sendsBody,
    rawBody,
    origin,
    sentTarget,
    payload,
    problems,
    result,
    skew,
    curl,
    applianceNow,
  };
}

export type PlaygroundDraft = ReturnType<typeof usePlaygroundDraft>;
