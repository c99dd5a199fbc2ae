export { TokensPage } from './TokensPage.tsx';
