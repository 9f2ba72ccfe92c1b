import { filesFeature } from '../files/feature';
import type { FeatureFactory } from './types';

/** The capabilities every core gets, in the order their hooks run. Each issue's capability adds its factory here. */
export const defaultFeatures: FeatureFactory[] = [filesFeature];
