import { ThemeSwitch } from '../../appearance/ThemeSwitch';

/** The theme: follow the system, or always light or dark; saved at once. (Notifications have a page of their own.) */
export function AppearancePage() {
  return (
    <div className="settings-form">
      <section className="settings-section" aria-labelledby="settings-theme">
        <h4 className="section-title" id="settings-theme">
          Theme
        </h4>
        <ThemeSwitch />
      </section>
    </div>
  );
}
