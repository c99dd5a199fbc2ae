export { TrafficPage } from './TrafficPage.tsx';
export { AlertsBanner } from './AlertsBanner.tsx';
