import { useState, type FormEvent } from 'react';
import { changePasswordSchema } from '../../../../contracts/admin/auth.ts';
import {
  createOperatorSchema,
  OPERATOR_PASSWORD_MIN,
  type OperatorRole,
} from '../../../../contracts/admin/operators.ts';
import { ApiError } from '../../lib/api.ts';
import { CopyableValue } from '../../lib/copy.tsx';
import { ConfirmDialog, FormDialog, NoticeDialog, ShownOnceDialog } from '../../lib/dialogs.tsx';
import { useFieldErrors } from '../../lib/forms.tsx';
import { issuesToFields } from '../../lib/messages.ts';
import { ListTable } from '../../lib/table.tsx';
import { StatusBadge } from '../../lib/vocabulary.tsx';
import {
  Badge,
  breakable,
  Button,
  EmptyState,
  ErrorBanner,
  Field,
  NewButton,
  PageHeader,
  SectionCard,
  formatDate,
  formatDateFull,
} from '../../lib/ui.tsx';
import {
  explained,
  useChangePassword,
  useCreateOperator,
  useOperators,
  useResetOperatorPassword,
  useUpdateOperator,
  type Me,
  type Operator,
  type OperatorWithPassword,
} from './api.ts';

const ROLE_TEXT: Record<OperatorRole, string> = {
  admin: 'Admin — everything: keys and secrets, clinics, faults, clock, tokens, operators',
  viewer: 'Viewer — read-only: the journal, keys (masked), clinics and faults; no secrets, no changes',
};

function RoleBadge({ role }: { role: OperatorRole }) {
  return <Badge tone={role === 'admin' ? 'info' : 'neutral'}>{role === 'admin' ? 'Admin' : 'Viewer'}</Badge>;
}

/** A generated password, once: the label names the value for a screen reader and for `getByLabel`. */
function PasswordShownOnce({
  result,
  title,
  onClose,
}: {
  result: OperatorWithPassword;
  title: string;
  onClose: () => void;
}) {
  return (
    <ShownOnceDialog
      title={title}
      storedLabel="I have handed the password over safely"
      onClose={onClose}
      warning={
        <>
          <strong>Copy the password now — it will not be shown again.</strong>
          <div>
            The appliance keeps only a hash of it. Give it to {result.operator.username}, who can change it on the
            Operators page.
          </div>
        </>
      }
    >
      <p style={{ marginTop: 0 }}>
        <strong>{result.operator.username}</strong> · <RoleBadge role={result.operator.role} />
      </p>
      <CopyableValue
        label={`Password of ${result.operator.username}`}
        labelId="operator-password-label"
        value={result.password}
        testId="operator-password"
        copyLabel="Copy password"
      />
    </ShownOnceDialog>
  );
}

function AddOperatorDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (r: OperatorWithPassword) => void;
}) {
  const create = useCreateOperator();
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<OperatorRole>('viewer');
  const { errors, submit } = useFieldErrors();
  return (
    <FormDialog
      title="New operator"
      label="Add operator"
      pendingLabel="Adding…"
      pending={create.isPending}
      onSubmit={submit(createOperatorSchema, { username, role }, (input, onError) =>
        create.mutate(input, { onSuccess: onCreated, onError }),
      )}
      error={explained(create.error, username)}
      errorTitle="The operator was not added"
      onClose={onClose}
    >
      <Field
        id="operator-username"
        label="Username"
        error={errors.username}
        hint="Lowercase letters, digits, dots, hyphens or underscores."
      >
        <input
          id="operator-username"
          value={username}
          autoComplete="off"
          maxLength={64}
          onChange={(e) => setUsername(e.target.value)}
          // biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field
          autoFocus
        />
      </Field>
      {/* Short options, so the select shows the chosen one whole; what the role may do is the hint under it. */}
      <Field id="operator-role" label="Role" error={errors.role} hint={ROLE_TEXT[role]}>
        <select id="operator-role" value={role} onChange={(e) => setRole(e.target.value as OperatorRole)}>
          <option value="viewer">Viewer (read-only)</option>
          <option value="admin">Admin</option>
        </select>
      </Field>
      <p className="hint" style={{ margin: 0 }}>
        A password is generated and shown once. The operator signs in with it and can change it here.
      </p>
    </FormDialog>
  );
}

/** The change dialog's fields, in order: the body's two passwords and the repeat the console checks itself. */
const PASSWORD_FIELDS = [
  { name: 'current_password', id: 'current-password', label: 'Current password', autoComplete: 'current-password' },
  {
    name: 'new_password',
    id: 'new-password',
    label: 'New password',
    autoComplete: 'new-password',
    hint: `At least ${OPERATOR_PASSWORD_MIN} characters. Your other sessions will be signed out.`,
  },
  { name: 'repeat', id: 'repeat-password', label: 'Repeat the new password', autoComplete: 'new-password' },
] as const;
type PasswordValues = Record<(typeof PASSWORD_FIELDS)[number]['name'], string>;

function ChangePasswordDialog({ onClose }: { onClose: () => void }) {
  const change = useChangePassword();
  const [values, setValues] = useState<PasswordValues>({ current_password: '', new_password: '', repeat: '' });
  const { errors, setErrors, fromServer } = useFieldErrors();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { current_password, new_password, repeat } = values;
    const parsed = changePasswordSchema.safeParse({ current_password, new_password });
    const found = parsed.success ? {} : issuesToFields(parsed.error.issues);
    if (new_password !== repeat) found.repeat ??= 'The two new passwords differ.';
    setErrors(found);
    if (!parsed.success || Object.keys(found).length > 0) return;
    change.mutate(parsed.data, {
      onError: (e) => {
        fromServer(e);
        setValues((v) => ({ ...v, current_password: '' }));
      },
    });
  };
  if (change.isSuccess) {
    const others = change.data.other_sessions_ended;
    return (
      <NoticeDialog title="Password changed" onClose={onClose}>
        <div className="banner banner-info" role="status">
          <strong>Your password was changed.</strong>
          <div>
            You stay signed in here.{' '}
            {others > 0
              ? `Your ${others} other session${others === 1 ? ' was' : 's were'} signed out.`
              : 'You had no other session.'}
          </div>
        </div>
      </NoticeDialog>
    );
  }
  return (
    <FormDialog
      title="Change your password"
      label="Change password"
      pendingLabel="Changing…"
      pending={change.isPending}
      onSubmit={submit}
      error={change.error instanceof ApiError && change.error.code === 'VAL_INVALID_PARAM' ? null : change.error}
      errorTitle="The password was not changed"
      onClose={onClose}
    >
      {PASSWORD_FIELDS.map((field, i) => (
        <Field
          key={field.id}
          id={field.id}
          label={field.label}
          error={errors[field.name]}
          hint={'hint' in field ? field.hint : undefined}
        >
          <input
            id={field.id}
            type="password"
            autoComplete={field.autoComplete}
            value={values[field.name]}
            onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
            // biome-ignore lint/a11y/noAutofocus: a dialog opens on its first field
            autoFocus={i === 0}
          />
        </Field>
      ))}
    </FormDialog>
  );
}

type Confirm = { kind: 'disable' | 'enable' | 'role' | 'reset'; operator: Operator } | null;

function ConfirmChange({
  confirm,
  onClose,
  onReset,
}: {
  confirm: NonNullable<Confirm>;
  onClose: () => void;
  onReset: (r: OperatorWithPassword) => void;
}) {
  const update = useUpdateOperator();
  const reset = useResetOperatorPassword();
  const o = confirm.operator;
  const pending = update.isPending || reset.isPending;
  const toRole: OperatorRole = o.role === 'admin' ? 'viewer' : 'admin';
  const text = {
    disable: {
      title: `Disable ${o.username}?`,
      action: 'Disable',
      body: `${o.username} can no longer sign in. Their ${o.sessions} open session(s) end now and their ${o.tokens} active operator token(s) are revoked for good. You can enable the account again later.`,
    },
    enable: {
      title: `Enable ${o.username}?`,
      action: 'Enable',
      body: `${o.username} can sign in again with their password. Tokens revoked when the account was disabled stay revoked.`,
    },
    role: {
      title: `Make ${o.username} ${toRole === 'admin' ? 'an admin' : 'a viewer'}?`,
      action: toRole === 'admin' ? 'Make admin' : 'Make viewer',
      body: `${ROLE_TEXT[toRole]}. Their open sessions and tokens follow at once.`,
    },
    reset: {
      title: `Reset the password of ${o.username}?`,
      action: 'Reset password',
      body: `A new password is generated and shown once; the current one stops working and their ${o.sessions} open session(s) end. Their operator tokens are not touched.`,
    },
  }[confirm.kind];
  const run = () => {
    if (confirm.kind === 'reset') return reset.mutate(o.id, { onSuccess: onReset });
    const change = confirm.kind === 'role' ? { role: toRole } : { disabled: confirm.kind === 'disable' };
    update.mutate({ id: o.id, change }, { onSuccess: onClose });
  };
  return (
    <ConfirmDialog
      title={text.title}
      label={text.action}
      variant={confirm.kind === 'disable' || confirm.kind === 'reset' ? 'danger' : 'primary'}
      pending={pending}
      error={explained(update.error ?? reset.error, o.username)}
      errorTitle="Nothing was changed"
      onConfirm={run}
      onClose={onClose}
    >
      <p style={{ marginTop: 0 }}>{text.body}</p>
    </ConfirmDialog>
  );
}

function OperatorsTable({ me, onConfirm }: { me: Me; onConfirm: (c: Confirm) => void }) {
  const operators = useOperators(true);
  if (operators.error) return <ErrorBanner error={operators.error} title="Operators could not be loaded" />;
  return (
    <ListTable
      pending={operators.isPending}
      rows={operators.data}
      empty={<EmptyState title="No operators" />}
      columns={['Operator', 'Role', 'Status', 'Activity']}
      rowKey={(o) => o.id}
      row={(o) => ({ 'data-operator': o.username })}
      cells={(o) => (
        <>
          <td>
            <strong>{breakable(o.username)}</strong>
            {o.id === me.id && <div className="key-meta">you</div>}
          </td>
          <td>
            {o.id !== me.id && o.status === 'active' ? (
              // Choosing the other role asks for confirmation; the select shows the current one meanwhile.
              <select
                aria-label={`Role of ${o.username}`}
                style={{
                  font: 'inherit',
                  fontSize: 13,
                  padding: '3px 6px',
                  borderRadius: 6,
                  border: '1px solid var(--border-strong)',
                  background: '#fff',
                }}
                value={o.role}
                onChange={(e) => e.target.value !== o.role && onConfirm({ kind: 'role', operator: o })}
              >
                <option value="admin">Admin</option>
                <option value="viewer">Viewer</option>
              </select>
            ) : (
              <RoleBadge role={o.role} />
            )}
          </td>
          <td title={o.disabled_at ? `Disabled ${formatDateFull(o.disabled_at)}` : undefined}>
            <StatusBadge status={o.status} />
          </td>
          <td>
            <div className="nowrap">
              {o.sessions} {o.sessions === 1 ? 'session' : 'sessions'} · {o.tokens}{' '}
              {o.tokens === 1 ? 'token' : 'tokens'}
            </div>
            <div className="key-meta nowrap" title={formatDateFull(o.created_at)}>
              created {formatDate(o.created_at)}
            </div>
            <div className="key-meta nowrap" title={formatDateFull(o.password_changed_at)}>
              {o.password_changed_at
                ? `password changed ${formatDate(o.password_changed_at)}`
                : 'password never changed'}
            </div>
          </td>
        </>
      )}
      actions={(o) =>
        o.id !== me.id && (
          <div className="row-actions">
            {o.status === 'active' && (
              <Button
                className="btn-sm"
                onClick={() => onConfirm({ kind: 'reset', operator: o })}
                aria-label={`Reset password of ${o.username}`}
              >
                Reset password
              </Button>
            )}
            {o.status === 'active' ? (
              <Button
                className="btn-sm"
                variant="danger"
                onClick={() => onConfirm({ kind: 'disable', operator: o })}
                aria-label={`Disable ${o.username}`}
              >
                Disable
              </Button>
            ) : (
              <Button
                className="btn-sm"
                onClick={() => onConfirm({ kind: 'enable', operator: o })}
                aria-label={`Enable ${o.username}`}
              >
                Enable
              </Button>
            )}
          </div>
        )
      }
    />
  );
}

/**
 * Operator accounts (issue 22 § 6). Everyone: their own account and password. Admins: every account —
 * add, make admin or viewer, disable or enable, reset a password (shown once). The API enforces all of
 * it; a viewer's page simply does not offer what it would refuse.
 */
export function OperatorsPage({ me }: { me: Me }) {
  const isAdmin = me.role === 'admin';
  const [adding, setAdding] = useState(false);
  const [changing, setChanging] = useState(false);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [shown, setShown] = useState<{ result: OperatorWithPassword; title: string } | null>(null);
  return (
    <>
      <PageHeader
        title="Operators"
        description="Console accounts. Admins do everything; viewers read the journal, the keys (masked), clinics and faults, and change nothing. Every console action in the audit log names its operator."
        actions={isAdmin && <NewButton noun="operator" onClick={() => setAdding(true)} />}
      />
      <section className="card card-pad" aria-label="Your account" style={{ marginBottom: 16 }}>
        <h2 style={{ margin: 0 }}>Your account</h2>
        <p style={{ margin: '8px 0 12px' }}>
          Signed in as <strong data-testid="my-username">{me.username}</strong> · <RoleBadge role={me.role} />
        </p>
        <p className="hint" style={{ marginTop: 0 }}>
          {ROLE_TEXT[me.role]}.
        </p>
        <Button onClick={() => setChanging(true)}>Change password</Button>
      </section>
      {isAdmin ? (
        <SectionCard label="Operators" title="All operators">
          <OperatorsTable me={me} onConfirm={setConfirm} />
          <p className="hint" style={{ margin: 0, padding: '10px 18px' }}>
            The last active admin can be neither disabled nor made a viewer. Nobody changes their own role, status or
            password here: another admin does (your password: <em>Change password</em> above).
          </p>
        </SectionCard>
      ) : (
        <p className="muted">Only an admin sees and manages the other accounts.</p>
      )}
      {adding && (
        <AddOperatorDialog
          onClose={() => setAdding(false)}
          onCreated={(result) => {
            setAdding(false);
            setShown({ result, title: `Operator ${result.operator.username} added` });
          }}
        />
      )}
      {changing && <ChangePasswordDialog onClose={() => setChanging(false)} />}
      {confirm && (
        <ConfirmChange
          confirm={confirm}
          onClose={() => setConfirm(null)}
          onReset={(result) => {
            setConfirm(null);
            setShown({ result, title: `New password for ${result.operator.username}` });
          }}
        />
      )}
      {shown && <PasswordShownOnce result={shown.result} title={shown.title} onClose={() => setShown(null)} />}
    </>
  );
}
