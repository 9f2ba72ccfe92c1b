import { backgroundFeature } from '../background/feature';
import { filesFeature } from '../files/feature';
import { goalsFeature } from '../goals/feature';
import { permissionsFeature } from '../permissions/feature';
import { planFeature } from '../plan/feature';
import { questionsFeature } from '../questions/feature';
import { skillsFeature } from '../skills/feature';
import { todoFeature } from '../todo/feature';
import type { FeatureFactory } from './types';

/** The capabilities every core gets, in the order their hooks run. Each issue's capability adds its factory here. */
export const defaultFeatures: FeatureFactory[] = [
  // The user in control: permissions decide on every call (first); plan mode, questions, todos and goals.
  permissionsFeature,
  planFeature,
  questionsFeature,
  todoFeature,
  goalsFeature,
  // The hands: Read, Write, Edit, Grep, Glob, ReadMediaFile, image attachments.
  filesFeature,
  // Shell and background work: Bash, background tasks, scheduled prompts.
  backgroundFeature(),
  skillsFeature,
];
