/// Satchel's version, shown by every tool's --version. Bumped with each release (README).
public enum SatchelVersion {
    public static let string = "0.5.0"
}
