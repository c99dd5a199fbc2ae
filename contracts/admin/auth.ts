import { z } from 'zod';
import { newPassword, OPERATOR_ROLES } from './operators.ts';

export const loginSchema = z.object({
  username: z.string().trim().min(1, 'Informe o usuario.').max(100),
  password: z.string().min(1, 'Informe a senha.').max(200),
});
export type LoginInput = z.infer<typeof loginSchema>;

/** `POST /auth/login` and `GET /auth/session`: who is signed in, and the CSRF token of every write. */
export const sessionView = z.object({
  operator: z.object({ id: z.number().int(), username: z.string(), role: z.enum(OPERATOR_ROLES) }),
  csrf_token: z.string(),
  expires_at: z.string(),
});
export type SessionView = z.infer<typeof sessionView>;

export const loggedOut = z.object({ logged_out: z.literal(true) });

/** `POST /auth/password`: your own password, the current one required. */
export const changePasswordSchema = z
  .object({
    current_password: z.string().min(1, 'Informe a senha atual.').max(200),
    new_password: newPassword,
  })
  .strict()
  .refine((v) => v.new_password !== v.current_password, {
    message: 'A nova senha deve ser diferente da atual.',
    path: ['new_password'],
  });
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/** Your other sessions end; this one stays. */
export const passwordChanged = z.object({ changed: z.literal(true), other_sessions_ended: z.number().int() });
