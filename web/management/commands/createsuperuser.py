"""Django's createsuperuser, validating the password with --noinput too: Django checks
AUTH_PASSWORD_VALIDATORS only for a password it asks for, and would take
DJANGO_SUPERUSER_PASSWORD=1 from a script."""

import os

from django.contrib.auth.management.commands import createsuperuser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError


class Command(createsuperuser.Command):
    def handle(self, *args, **options) -> None:
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD")
        if not options["interactive"] and password is not None:
            fields = (self.UserModel.USERNAME_FIELD, *self.UserModel.REQUIRED_FIELDS)
            # The user as it would be made, so similarity to the name or email counts.
            user = self.UserModel(
                **{
                    field: options.get(field)
                    or os.environ.get(f"DJANGO_SUPERUSER_{field.upper()}", "")
                    for field in fields
                }
            )
            try:
                validate_password(password, user)
            except ValidationError as error:
                raise CommandError(
                    "DJANGO_SUPERUSER_PASSWORD is refused: " + " ".join(error.messages)
                ) from error
        super().handle(*args, **options)
