export { StorageFaultsPage } from './StorageFaultsPage.tsx';
