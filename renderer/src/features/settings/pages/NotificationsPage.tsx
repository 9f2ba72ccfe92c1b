import { NotificationSettings } from '../../appearance/NotificationSettings';

/** Desktop notifications when a turn ends or Deft waits while the window is in the background; saved at once. */
export function NotificationsPage() {
  return (
    <div className="settings-form">
      <section className="settings-section" aria-label="Desktop notifications">
        <NotificationSettings />
      </section>
    </div>
  );
}
