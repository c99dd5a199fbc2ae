export {
  default as adminPlugin,
  ADMIN_PREFIX,
  SESSION_COOKIE,
  CSRF_HEADER,
  adminPoliciesFromEnv,
  type AdminPluginOptions,
} from './admin-plugin.ts';
export { registerConsoleStatic } from './console-static.ts';
