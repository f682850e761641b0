"""The Italian Wars companies rules (the text's command layer and Herald's completion), issue 16."""
