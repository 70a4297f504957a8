/** The centred card the setup and login pages sit in. */
import { Container, Paper, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function AuthCard({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  return (
    <Container size={440} py={60} component="main">
      <Title order={1} ta="center" size="h2">
        {title}
      </Title>
      <Text c="dimmed" size="sm" ta="center" mt={5}>
        {description}
      </Text>
      <Paper withBorder shadow="sm" p="lg" mt="lg" radius="md">
        {children}
      </Paper>
    </Container>
  );
}
