import { clinicOptions, keyOptions, Select } from '../../lib/forms.tsx';
import { Field } from '../../lib/ui.tsx';
import { RawInput } from './RawInput.tsx';
import type { PlaygroundDraft } from './usePlaygroundDraft.ts';

/** The key a request is signed with: clinic and key from the lists, or an API key pasted; its secret. */
export function KeyFields({ draft }: { draft: PlaygroundDraft }) {
  const { tenants, keys, chosenKey, tenant, keyId, apiKey, secret } = draft;
  return (
    <>
      <h2 className="card-heading">Key</h2>
      <div>
        <Field id="pg-tenant" label="Clinic">
          <Select
            id="pg-tenant"
            value={tenant}
            onChange={draft.chooseTenant}
            options={clinicOptions(tenants.data)}
            blank="Choose…"
          />
        </Field>
        <Field
          id="pg-key"
          label="Key"
          hint={chosenKey ? `${chosenKey.api_key_masked} · ${chosenKey.escopos.length} scopes` : 'Fills X-API-Key.'}
        >
          <Select
            id="pg-key"
            value={keyId}
            disabled={!tenant}
            onChange={draft.setKeyId}
            options={keyOptions(keys.data?.filter((k) => k.status === 'active'))}
            blank={tenant ? 'Choose…' : 'Choose a clinic'}
          />
        </Field>
      </div>
      <Field
        id="pg-api-key"
        label="API key (X-API-Key)"
        hint={
          chosenKey
            ? 'The chosen key, in full: it is not secret, and not signed.'
            : 'Not part of the signature; sent as is.'
        }
      >
        <RawInput id="pg-api-key" value={apiKey} onValue={draft.setApiKey} trim placeholder="ce_live_…" />
      </Field>
      <Field
        id="pg-secret"
        label="API secret"
        hint="Paste the secret you stored: the console cannot show it again. HMAC-SHA256 is computed in the browser; the secret is never sent to the appliance, never stored, and gone when you leave the page."
      >
        <RawInput id="pg-secret" type="password" value={secret} onValue={draft.setSecret} trim />
      </Field>
    </>
  );
}
