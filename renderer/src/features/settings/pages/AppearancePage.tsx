import { NotificationSettings } from '../../appearance/NotificationSettings';
import { ThemeSwitch } from '../../appearance/ThemeSwitch';

/** The theme (follow the system, or always light or dark) and desktop notifications; both save at once. */
export function AppearancePage() {
  return (
    <div className="settings-form">
      <section className="settings-section" aria-labelledby="settings-theme">
        <h4 className="section-title" id="settings-theme">
          Theme
        </h4>
        <ThemeSwitch />
      </section>
      <section className="settings-section" aria-labelledby="settings-notifications">
        <h4 className="section-title" id="settings-notifications">
          Notifications
        </h4>
        <NotificationSettings />
      </section>
    </div>
  );
}
