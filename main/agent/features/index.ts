import { backgroundFeature } from '../background/feature';
import { skillsFeature } from '../skills/feature';
import type { FeatureFactory } from './types';

/** The capabilities every core gets, in the order their hooks run. Each issue's capability adds its factory here. */
export const defaultFeatures: FeatureFactory[] = [
  skillsFeature,
  // Shell and background work: Bash, background tasks, scheduled prompts.
  backgroundFeature(),
];
