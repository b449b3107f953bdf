from tracepub.review import decisions


def test_latest_decision_wins_and_file_is_appended(tmp_path):
    decisions.append(tmp_path, "keep", "jane", value_id="v1")
    decisions.append(tmp_path, "add", "jane", text="internal-token-123")
    decisions.append(tmp_path, "drop_session", "jane", session="s1")
    decisions.append(tmp_path, "redact", "jane", value_id="v1")
    decisions.append(tmp_path, "restore_session", "jane", session="s1")
    decisions.append(tmp_path, "drop_session", "jane", session="s2")
    d = decisions.load(tmp_path)
    assert d.keep_ids == set()
    assert d.add_values == ["internal-token-123"]
    assert d.dropped_sessions == {"s2"}
    assert len(decisions.read(tmp_path)) == 6
