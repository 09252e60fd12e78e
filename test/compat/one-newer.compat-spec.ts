import { crossVersionSkeleton } from './cross-version-skeleton';
import { oneNewer } from './releases';

/**
 * The support window, the other way: each service shipped at HEAD ahead of the other three, which
 * still run their previous release.
 */
describe('one service at HEAD, the others at their previous release', () => {
  for (const mix of oneNewer()) crossVersionSkeleton(mix);
});
