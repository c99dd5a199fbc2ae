import { useState, type FormEvent } from 'react';
import { loginSchema } from '../../../../contracts/admin/auth.ts';
import { ApiError } from '../../lib/api.ts';
import { Button, Field } from '../../lib/ui.tsx';
import { errorSentence, issuesToFields } from '../../lib/messages.ts';
import { useLogin, useLoginReason } from './api.ts';

export function LoginPage() {
  const login = useLogin();
  const reason = useLoginReason();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = loginSchema.safeParse({ username, password });
    if (!parsed.success) {
      setFieldErrors(issuesToFields(parsed.error.issues));
      return;
    }
    setFieldErrors({});
    login.mutate(parsed.data, { onError: () => setPassword('') });
  };

  const error = login.error instanceof ApiError ? login.error : null;
  return (
    <main className="login-page">
      <form className="card login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
        <div className="brand">
          <div className="brand-mark">CE</div>
          <div>
            <div className="brand-name" id="login-title">
              Operator console
            </div>
            <div className="brand-sub">Clinic Exams Gateway v1</div>
          </div>
        </div>
        {reason === 'expired' && !error && (
          <div className="banner banner-info" role="status" data-testid="session-expired">
            <strong>Your session expired — sign in again.</strong>
            <div>You will be back on the page you were on.</div>
          </div>
        )}
        {error && (
          <div className={`banner ${error.code === 'ADMIN_LOCKED' ? 'banner-warn' : 'banner-error'}`} role="alert">
            {error.code === 'ADMIN_LOCKED' ? (
              <>
                <strong>Too many failed sign-ins.</strong> Sign-in from this address is paused; try again in{' '}
                {Math.ceil(Number(error.details?.retry_after_segundos ?? 900) / 60)} minutes.
              </>
            ) : error.code === 'ADMIN_UNAUTHENTICATED' ? (
              <strong>Wrong username or password.</strong>
            ) : (
              errorSentence(error)
            )}
          </div>
        )}
        <Field id="login-username" label="Username" error={fieldErrors.username}>
          <input
            id="login-username"
            autoComplete="username"
            // biome-ignore lint/a11y/noAutofocus: the sign-in page exists to take the username
            autoFocus
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </Field>
        <Field id="login-password" label="Password" error={fieldErrors.password}>
          <input
            id="login-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Button type="submit" variant="primary" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
        <p className="hint" style={{ marginTop: 14, marginBottom: 0 }}>
          The first operator's password is in <code className="nowrap">DATA_DIR/demo-credentials.json</code>.
        </p>
      </form>
    </main>
  );
}
