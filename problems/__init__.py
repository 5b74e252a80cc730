"""The bundled problem catalogue (data and reference code), one folder per problem."""
