import { ErrorBanner, PageHeader } from '../../lib/ui.tsx';
import { KeyFields } from './KeyFields.tsx';
import { RequestFields } from './RequestFields.tsx';
import { ResponseView } from './ResponseView.tsx';
import { SignatureCard } from './SignatureCard.tsx';
import { usePlaygroundDraft } from './usePlaygroundDraft.ts';
import { useSend } from './useSend.ts';

/**
 * The signing playground: a request built and signed in the browser (usePlaygroundDraft), sent through the
 * gateway (useSend), and its answer.
 */
export function PlaygroundPage() {
  const draft = usePlaygroundDraft();
  const sender = useSend(draft);
  return (
    <>
      <PageHeader
        title="Signing playground"
        description="Build a signed request step by step, send it through the gateway and read the answer. The secret stays in this page's memory: it signs here and is never sent or stored."
      />
      <ErrorBanner
        error={draft.tenants.error ?? draft.keys.error ?? draft.fullKey.error}
        title="Keys could not be loaded"
      />
      <div className="playground-grid">
        <section className="card card-pad" aria-label="Request to sign">
          <KeyFields draft={draft} />
          <RequestFields draft={draft} sender={sender} />
        </section>
        <SignatureCard draft={draft} />
      </div>
      <ErrorBanner error={sender.error} title="The request could not be sent" />
      {sender.sent && <ResponseView sent={sender.sent} origin={draft.origin} apiKey={draft.apiKey} />}
    </>
  );
}
