export { ClockBanner } from './ClockBanner.tsx';
export { ClockPage } from './ClockPage.tsx';
