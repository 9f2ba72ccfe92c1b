import { backgroundFeature } from './capabilities/shell/feature';
import { filesFeature } from './capabilities/files/feature';
import { goalsFeature } from './capabilities/goals/feature';
import { permissionsFeature } from './capabilities/approvals/permissions';
import { planFeature } from './capabilities/approvals/plan';
import { questionsFeature } from './capabilities/approvals/questions';
import { skillsFeature } from './capabilities/skills/feature';
import { todoFeature } from './capabilities/todo/feature';
import type { FeatureFactory } from './contract/feature';

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
